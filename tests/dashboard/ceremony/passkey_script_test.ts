import assert from "node:assert/strict";
import { base64urlnopad } from "@scure/base";
import { base64urlOfBytes, bytesOfBase64url } from "../../../routes/dashboard/ceremony/passkey_client.ts";
import {
  PASSKEY_JS,
  PASSKEY_SCRIPT_PATH,
  passkeyScriptRoutes,
} from "../../../routes/dashboard/ceremony/passkey_script.ts";

Deno.test("the script's base64url agrees with @scure/base's, both ways, at every length", () => {
  for (let length = 0; length < 70; length++) {
    const bytes = crypto.getRandomValues(new Uint8Array(length));
    const text = base64urlnopad.encode(bytes);
    assert.equal(base64urlOfBytes(bytes), text);
    assert.equal(base64urlOfBytes(bytes.buffer), text);
    assert.equal(base64urlOfBytes(new DataView(bytes.buffer)), text);
    assert.deepEqual(bytesOfBase64url(text), bytes);
    assert.deepEqual(bytesOfBase64url(text.padEnd(Math.ceil(text.length / 4) * 4, "=")), bytes);
  }
});

Deno.test("the script is one closure that parses and leaves no global behind", () => {
  assert.ok(PASSKEY_JS.startsWith('(() => {\n"use strict";'));
  assert.ok(PASSKEY_JS.trimEnd().endsWith("startPasskeyButtons();\n})();"));
  assert.doesNotThrow(() => new Function(PASSKEY_JS));
  assert.doesNotMatch(PASSKEY_JS, /\bimport\b|\bexport\b|: string|: Uint8Array/);
});

Deno.test("the script is served same-origin as JavaScript with the pages' headers", async () => {
  const response = await passkeyScriptRoutes().request(PASSKEY_SCRIPT_PATH);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.match(response.headers.get("content-security-policy") ?? "", /default-src 'self'/);
  assert.equal(response.headers.get("x-content-type-options"), "nosniff");
  assert.equal(await response.text(), PASSKEY_JS);
});
