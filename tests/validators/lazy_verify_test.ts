/**
 * The service's sr25519 verifier loads the WebAssembly build on its first verification, not at
 * start-up. Other tests of the suite share this one's worker and load it, so the start-up check
 * runs in a process of its own (wasm_at_start.ts).
 */
import assert from "node:assert/strict";
import * as scure from "@scure/sr25519";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import {
  lazySr25519Verify,
  loadWasmSr25519Verify,
  startedWasmSr25519Sign,
} from "../../actors/validators/mod.ts";
import type { LogLine } from "../../actors/kernel/mod.ts";

const secret = scure.secretFromSeed(new Uint8Array(32).fill(9));
const publicKey = scure.getPublicKey(secret);
const message = utf8ToBytes("GET /v1/validators/agent-and-event");
const signature = scure.sign(secret, message);
const tampered = utf8ToBytes("GET /v1/validators/agent-and-event?x");

Deno.test("starting a service does not load the sr25519 WebAssembly", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./wasm_at_start.ts", import.meta.url).pathname],
    stderr: "inherit",
  }).output();
  assert.equal(output.code, 0);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), { status: 200, wasmStarted: false });
});

Deno.test("the lazy verifier answers at once, starts the WebAssembly, and answers the same after", async () => {
  const logged: LogLine[] = [];
  const verify = lazySr25519Verify({ log: (entry) => logged.push(entry) });
  assert.equal(verify(signature, message, publicKey), true, "before the WebAssembly is ready");
  assert.equal(verify(signature, tampered, publicKey), false);
  await loadWasmSr25519Verify();
  await Promise.resolve();
  assert.ok(startedWasmSr25519Sign(), "the first verification started the WebAssembly build");
  assert.equal(verify(signature, message, publicKey), true, "once it is ready");
  assert.equal(verify(signature, tampered, publicKey), false);
  assert.equal(verify(new Uint8Array(64), message, publicKey), false);
  assert.deepEqual(logged, []);
});
