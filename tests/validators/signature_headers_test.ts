import assert from "node:assert/strict";
import { ServiceError } from "../../actors/kernel/mod.ts";
import {
  checkWindow,
  parseSignatureHeaders,
  requestTarget,
  scureSr25519Verify,
  signerFromSecretHex,
  signRequest,
  verifySignedRequest,
} from "../../actors/validators/mod.ts";

const signer = signerFromSecretHex("11".repeat(32));
const MINER = "5Fpfx4iDtrrY99VGkQnLXASytC2y9Z3o8KUyTtD4w7o5SZcA";
const NOW = 1_763_712_000_000;
const GOOD = {
  "x-validator-hotkey": signer.hotkey,
  "x-validator-nonce": "n0nce-0001-abcdef",
  "x-validator-timestamp": String(NOW),
  "x-validator-signature": `0x${"ab".repeat(64)}`,
};

function failsWith(code: string, check?: (error: ServiceError) => void) {
  return (error: unknown) => {
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, code, error.message);
    check?.(error);
    return true;
  };
}

function badFields(error: ServiceError): string[] {
  return (error.details?.fields as { field: string }[]).map((f) => f.field);
}

Deno.test("well-formed validator headers parse into key, nonce, time and 64 signature bytes", () => {
  const parsed = parseSignatureHeaders(new Headers({ ...GOOD, "x-miner-hotkey": MINER }), "validator");
  assert.equal(parsed.hotkey, signer.hotkey);
  assert.deepEqual(parsed.publicKey, signer.publicKey);
  assert.equal(parsed.timestampMs, NOW);
  assert.equal(parsed.signature.length, 64);
  assert.equal(parsed.minerHotkey, MINER);
  const lookup = (name: string) =>
    ({ ...GOOD, "x-validator-signature": "AB".repeat(64) })[name as keyof typeof GOOD];
  assert.deepEqual(parseSignatureHeaders(lookup, "validator").signature, parsed.signature);
});

Deno.test("a request missing any required signature header is unauthenticated, naming what is missing", () => {
  const { "x-validator-nonce": _, ...withoutNonce } = GOOD;
  assert.throws(
    () => parseSignatureHeaders(new Headers(withoutNonce), "validator"),
    failsWith("unauthenticated", (e) => assert.deepEqual(e.details?.missing, ["x-validator-nonce"])),
  );
  assert.throws(
    () => parseSignatureHeaders(new Headers(GOOD), "miner"),
    failsWith("unauthenticated", (e) => assert.equal((e.details?.missing as string[]).length, 4)),
  );
});

Deno.test("malformed signature headers are a 400 naming every bad header", () => {
  const cases: [Record<string, string>, string][] = [
    [{ "x-validator-hotkey": "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5" }, "x-validator-hotkey"],
    [{ "x-validator-hotkey": signer.hotkey.slice(0, -1) + "X" }, "x-validator-hotkey"],
    [{ "x-validator-nonce": "short-nonce-15ch".slice(0, 15) }, "x-validator-nonce"],
    [{ "x-validator-nonce": "a".repeat(129) }, "x-validator-nonce"],
    [{ "x-validator-nonce": "has a space in it ok" }, "x-validator-nonce"],
    [{ "x-validator-nonce": "nonce-with-é-accent" }, "x-validator-nonce"],
    [{ "x-validator-timestamp": "-1763712000000" }, "x-validator-timestamp"],
    [{ "x-validator-timestamp": "1763712000.5" }, "x-validator-timestamp"],
    [{ "x-validator-timestamp": "99999999999999999" }, "x-validator-timestamp"],
    [{ "x-validator-signature": "ab".repeat(63) }, "x-validator-signature"],
    [{ "x-validator-signature": `0x${"ab".repeat(65)}` }, "x-validator-signature"],
    [{ "x-validator-signature": `0x${"zz".repeat(64)}` }, "x-validator-signature"],
    [{ "x-validator-signature": `0X${"ab".repeat(64)}` }, "x-validator-signature"],
    [{ "x-miner-hotkey": "not-an-address" }, "x-miner-hotkey"],
  ];
  for (const [override, field] of cases) {
    assert.throws(
      () => parseSignatureHeaders(new Headers({ ...GOOD, ...override }), "validator"),
      failsWith("invalid_request", (e) => assert.deepEqual(badFields(e), [field])),
      JSON.stringify(override),
    );
  }
  const allBad = { "x-validator-hotkey": "x", "x-validator-nonce": "x", "x-validator-timestamp": "x" };
  assert.throws(
    () => parseSignatureHeaders(new Headers({ ...GOOD, ...allBad }), "validator"),
    failsWith("invalid_request", (e) => assert.equal(badFields(e).length, 3)),
  );
});

Deno.test("nonces of exactly 16 and 128 printable characters are well formed", () => {
  for (const nonce of ["!".repeat(16), "~".repeat(128), "A-z_0.9:/?#[]@!$&'()*+,;=%"]) {
    assert.equal(
      parseSignatureHeaders(new Headers({ ...GOOD, "x-validator-nonce": nonce }), "validator").nonce,
      nonce,
    );
  }
});

Deno.test("the timestamp window is inclusive on both sides and refuses one millisecond more", () => {
  const options = { nowMs: NOW, windowMs: 30_000 };
  checkWindow({ timestampMs: NOW - 30_000 }, options);
  checkWindow({ timestampMs: NOW + 30_000 }, options);
  for (const timestampMs of [NOW - 30_001, NOW + 30_001, 0]) {
    assert.throws(
      () => checkWindow({ timestampMs }, options),
      failsWith("timestamp_out_of_window", (e) => assert.equal(e.details?.serverTimeMs, NOW)),
    );
  }
});

Deno.test("checks run in the order of docs/signatures.md: headers, then the window, then the signature", () => {
  const request = { method: "GET", url: "/v1/validators/agent-and-event" };
  const signed = signRequest(signer, request, { role: "validator", nowMs: NOW - 60_000 });
  const forged = { ...signed, "x-validator-signature": `0x${"ab".repeat(64)}` };
  const parts = { method: "GET", target: request.url, body: "" };
  const options = { role: "validator" as const, nowMs: NOW, windowMs: 30_000, verify: scureSr25519Verify };
  const run = (headers: Record<string, string>, nowMs = NOW) =>
    verifySignedRequest({ ...parts, headers: new Headers(headers) }, { ...options, nowMs });
  assert.throws(() => run({ ...forged, "x-validator-nonce": "short" }), failsWith("invalid_request"));
  assert.throws(() => run(forged), failsWith("timestamp_out_of_window"));
  assert.throws(() => run(forged, NOW - 60_000), failsWith("invalid_signature"));
  assert.equal(run(signed, NOW - 60_000).hotkey, signer.hotkey);
});

Deno.test("a signed request fails when its query string, method, body or miner hotkey changes", () => {
  const request = {
    method: "POST",
    url: "/v1/gateway/validator/completions?x=1",
    body: '{"a":1}',
    minerHotkey: MINER,
  };
  const headers = signRequest(signer, request, { role: "validator", nowMs: NOW });
  const options = { role: "validator" as const, nowMs: NOW, windowMs: 30_000, verify: scureSr25519Verify };
  const base = { method: "POST", target: "/v1/gateway/validator/completions?x=1", body: '{"a":1}' };
  const run = (parts: typeof base, h: Record<string, string> = headers) =>
    verifySignedRequest({ ...parts, headers: new Headers(h) }, options);
  assert.equal(run(base).minerHotkey, MINER);
  assert.equal(run({ ...base, method: "post" }).hotkey, signer.hotkey);
  const changed = [
    { ...base, target: "/v1/gateway/validator/completions?x=2" },
    { ...base, target: "/v1/gateway/validator/completions" },
    { ...base, method: "PUT" },
    { ...base, body: '{"a":2}' },
  ];
  for (const parts of changed) {
    assert.throws(() => run(parts), failsWith("invalid_signature"), JSON.stringify(parts));
  }
  const { "x-miner-hotkey": _, ...withoutMiner } = headers;
  assert.throws(() => run(base, withoutMiner), failsWith("invalid_signature"));
});

Deno.test("the request target is the path and raw query as sent, without scheme, host or fragment", () => {
  assert.equal(requestTarget("https://gw.example:8443/v1/x?b=2&a=1#frag"), "/v1/x?b=2&a=1");
  assert.equal(requestTarget("http://gw.example/v1/x?q=%20a+b"), "/v1/x?q=%20a+b");
  assert.equal(requestTarget("http://gw.example/v1/x?"), "/v1/x?");
  assert.equal(requestTarget("http://gw.example"), "/");
  assert.equal(requestTarget("http://gw.example?a=1"), "/?a=1");
  assert.equal(requestTarget("/v1/x?days=7"), "/v1/x?days=7");
  assert.throws(() => requestTarget("gw.example/v1/x"), TypeError);
});
