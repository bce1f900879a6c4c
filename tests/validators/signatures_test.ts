import assert from "node:assert/strict";
import { hex } from "@scure/base";
import * as scure from "@scure/sr25519";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { sr25519KeypairFromSeed, sr25519Sign } from "@polkadot/wasm-crypto";
import { encodeSs58, ServiceError } from "../../actors/kernel/mod.ts";
import {
  canonicalMessage,
  loadSr25519Verify,
  loadWasmSr25519Verify,
  scureSr25519Verify,
  SIGNATURE_DOMAINS,
  SIGNATURE_HEADERS,
  type SignatureDomain,
  type SignatureRole,
  type Sr25519Verify,
  verifySignedRequest,
  wrapBytes,
} from "../../actors/validators/mod.ts";
import {
  SHARED_VECTORS_SHA256,
  type SignatureVector,
  signatureVectors,
  vectorsSha256,
} from "../support/signature_vectors.ts";

const vectors = await signatureVectors();
const verifiers: [string, Sr25519Verify][] = [
  ["@scure/sr25519", scureSr25519Verify],
  ["@polkadot/wasm-crypto", await loadWasmSr25519Verify()],
];

function roleOf(vector: SignatureVector): SignatureRole {
  const domain = vector.canonicalMessage.split("\n")[0];
  const role = (Object.keys(SIGNATURE_DOMAINS) as SignatureRole[]).find((r) =>
    SIGNATURE_DOMAINS[r] === domain
  );
  assert.ok(role, `${vector.name}: unknown domain ${domain}`);
  return role;
}

/** The headers a client of `role` sends for the vector's request. */
function headersOf(vector: SignatureVector, role: SignatureRole, signature = vector.signatureHex): Headers {
  const names = SIGNATURE_HEADERS[role];
  const headers = new Headers({
    [names.hotkey]: vector.signerSs58,
    [names.nonce]: vector.request.nonce,
    [names.timestamp]: vector.request.timestampMs,
    [names.signature]: signature,
  });
  if (role === "validator" && vector.request.minerHotkey !== null) {
    headers.set("x-miner-hotkey", vector.request.minerHotkey);
  }
  return headers;
}

Deno.test("the vendored signature vectors are the shared golden file, byte for byte", async () => {
  assert.equal(await vectorsSha256(), SHARED_VECTORS_SHA256);
  assert.ok(vectors.some((v) => v.valid) && vectors.some((v) => !v.valid) && vectors.some((v) => v.wrapped));
});

Deno.test("every golden vector's key, address and canonical message are what this service builds", () => {
  for (const vector of vectors) {
    const secret = scure.secretFromSeed(hex.decode(vector.signerSeedHex));
    const publicKey = scure.getPublicKey(secret);
    assert.equal(hex.encode(publicKey), vector.signerPublicKeyHex, vector.name);
    assert.equal(encodeSs58(publicKey), vector.signerSs58, vector.name);
    const { method, target, timestampMs, nonce, body, minerHotkey } = vector.request;
    const domain = SIGNATURE_DOMAINS[roleOf(vector)] satisfies SignatureDomain;
    const built = canonicalMessage(domain, {
      method,
      target,
      timestamp: timestampMs,
      nonce,
      body,
      minerHotkey,
    });
    assert.equal(built, vector.canonicalMessage, vector.name);
  }
});

Deno.test("every golden vector verifies or fails as it says, with both sr25519 implementations", () => {
  for (const vector of vectors) {
    const message = utf8ToBytes(vector.canonicalMessage);
    const signature = hex.decode(vector.signatureHex.replace(/^0x/, ""));
    const publicKey = hex.decode(vector.signerPublicKeyHex);
    for (const [name, verify] of verifiers) {
      const raw = verify(signature, message, publicKey);
      const wrapped = verify(signature, wrapBytes(message), publicKey);
      const label = `${vector.name} with ${name}`;
      assert.equal(raw || wrapped, vector.valid, label);
      if (vector.valid) assert.equal(wrapped, vector.wrapped, label);
    }
  }
});

Deno.test("every golden vector is accepted or refused by verifySignedRequest as it says", () => {
  for (const vector of vectors) {
    const role = roleOf(vector);
    const parts = { method: vector.request.method, target: vector.request.target, body: vector.request.body };
    const options = { role, nowMs: Number(vector.request.timestampMs), windowMs: 30_000 };
    for (const [name, verify] of verifiers) {
      const bare = vector.signatureHex.replace(/^0x/, "");
      for (const signature of [vector.signatureHex, bare, bare.toUpperCase()]) {
        const attempt = () =>
          verifySignedRequest({ ...parts, headers: headersOf(vector, role, signature) }, {
            ...options,
            verify,
          });
        if (!vector.valid) {
          assert.throws(
            attempt,
            (e) => e instanceof ServiceError && e.code === "invalid_signature",
            vector.name,
          );
          continue;
        }
        const verified = attempt();
        assert.equal(verified.hotkey, vector.signerSs58, `${vector.name} with ${name}`);
        assert.equal(verified.wrapped, vector.wrapped, `${vector.name} with ${name}`);
        assert.equal(verified.nonce, vector.request.nonce);
      }
    }
  }
});

Deno.test("a validator's golden signature does not verify when presented on a miner route", () => {
  const vector = vectors.find((v) => v.valid && roleOf(v) === "validator" && v.request.minerHotkey === null)!;
  const parts = { method: vector.request.method, target: vector.request.target, body: vector.request.body };
  const headers = headersOf(vector, "miner");
  const options = { role: "miner" as const, nowMs: Number(vector.request.timestampMs), windowMs: 30_000 };
  assert.throws(
    () => verifySignedRequest({ ...parts, headers }, { ...options, verify: scureSr25519Verify }),
    (e) => e instanceof ServiceError && e.code === "invalid_signature",
  );
});

Deno.test("both sr25519 implementations verify each other's signatures and refuse tampered ones", async () => {
  const verify = await loadSr25519Verify();
  for (let i = 0; i < 8; i++) {
    const seed = crypto.getRandomValues(new Uint8Array(32));
    const pair = sr25519KeypairFromSeed(seed);
    const [secret, publicKey] = [pair.subarray(0, 64), pair.subarray(64)];
    assert.deepEqual(scure.getPublicKey(scure.secretFromSeed(seed)), publicKey);
    const message = crypto.getRandomValues(new Uint8Array(1 + i * 37));
    const byWasm = sr25519Sign(publicKey, secret, message);
    const byScure = scure.sign(secret, message);
    for (const [name, check] of [...verifiers, ["service choice", verify] as const]) {
      assert.equal(check(byWasm, message, publicKey), true, `${name} on a wasm signature`);
      assert.equal(check(byScure, message, publicKey), true, `${name} on a scure signature`);
      const tampered = message.slice();
      tampered[0] = tampered[0]! ^ 1;
      assert.equal(check(byScure, tampered, publicKey), false, `${name} on a tampered message`);
      assert.equal(
        check(byScure, message, new Uint8Array(32).fill(255)),
        false,
        `${name} on a non-point key`,
      );
      assert.equal(check(new Uint8Array(64), message, publicKey), false, `${name} on a zero signature`);
    }
  }
});
