import assert from "node:assert/strict";
import { publicOriginOf } from "../../actors/ceremony/mod.ts";

Deno.test("the public origin and relying party id come from the configured URL", () => {
  assert.deepEqual(publicOriginOf("https://gateway.example/dashboard"), {
    origin: "https://gateway.example",
    rpId: "gateway.example",
  });
  assert.deepEqual(publicOriginOf("http://localhost:8080"), {
    origin: "http://localhost:8080",
    rpId: "localhost",
  });
  assert.deepEqual(publicOriginOf("https://gateway.example:443/"), {
    origin: "https://gateway.example",
    rpId: "gateway.example",
  });
});

Deno.test("a public URL WebAuthn cannot use is refused", () => {
  for (
    const url of [
      "gateway.example",
      "ftp://gateway.example",
      "http://127.0.0.1:8080",
      "https://[::1]:8443",
      "http://gateway.example",
      "https://user:pw@gateway.example",
      "https://gateway.example/?a=1",
      "https://gateway.example/#top",
    ]
  ) {
    assert.throws(() => publicOriginOf(url), TypeError, url);
  }
});
