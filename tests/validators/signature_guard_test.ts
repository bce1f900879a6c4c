import assert from "node:assert/strict";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { type SignaturePolicy, type Signer, signRequest } from "../../actors/validators/mod.ts";
import type { SignatureGuard } from "../../actors/validators/mod.ts";
import { openTestService } from "../support/test_service.ts";
import { openLoop, testSigner } from "../support/validator_loop.ts";

const VALIDATOR = testSigner("validator-0");
const MINER = testSigner("miner-0");
const UNREGISTERED = testSigner("miner-unregistered");
const GATEWAY = "/v1/gateway/validator/completions";
const SCORED = "/v1/validators/scored-predictions?days=7";

interface Call {
  signer: Signer;
  method: string;
  path: string;
  body?: string;
  minerHotkey?: string;
  nonce?: string;
}

/** Runs every step of `guard` on a request signed as `call` says; the error's code, or the caller. */
async function check(guard: SignatureGuard, policy: SignaturePolicy, call: Call, nowMs: number) {
  const body = call.body ?? "";
  const headers = new Headers(signRequest(
    call.signer,
    {
      method: call.method,
      url: call.path,
      body,
      ...(call.minerHotkey ? { minerHotkey: call.minerHotkey } : {}),
    },
    { role: policy.role, nowMs, ...(call.nonce ? { nonce: call.nonce } : {}) },
  ));
  try {
    const admitted = guard.admit(headers, policy);
    const parts = { method: call.method, target: call.path, body: new TextEncoder().encode(body) };
    return await guard.complete(admitted, parts);
  } catch (error) {
    if (error instanceof ServiceError) return error.code;
    throw error;
  }
}

Deno.test("9. on the validator gateway route the named miner must be registered to an organisation", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: [MINER], events: 0 });
  await using service = loop.service;
  const policy: SignaturePolicy = { role: "validator", minerHotkey: "required" };
  const nowMs = service.clock.now();
  const call = { signer: VALIDATOR, method: "POST", path: GATEWAY, body: "{}" };
  assert.equal(
    await check(service.signatureGuard, policy, call, nowMs),
    "invalid_request",
    "the header is required",
  );
  const unregistered = await check(
    service.signatureGuard,
    policy,
    { ...call, minerHotkey: UNREGISTERED.hotkey },
    nowMs,
  );
  assert.equal(unregistered, "miner_not_registered");
  const signed = await check(service.signatureGuard, policy, { ...call, minerHotkey: MINER.hotkey }, nowMs);
  assert.ok(typeof signed === "object");
  assert.deepEqual(signed.miner, { hotkey: MINER.hotkey, orgId: loop.orgId });
  assert.equal(signed.hotkey, VALIDATOR.hotkey);
  assert.equal(new TextDecoder().decode(signed.body), "{}");
});

Deno.test("9. comes last: a replayed nonce naming an unregistered miner is nonce_reused", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: [MINER], events: 0 });
  await using service = loop.service;
  const policy: SignaturePolicy = { role: "validator", minerHotkey: "required" };
  const call = {
    signer: VALIDATOR,
    method: "POST",
    path: GATEWAY,
    body: "{}",
    nonce: "gateway-nonce-000001",
  };
  const nowMs = service.clock.now();
  assert.ok(
    typeof await check(service.signatureGuard, policy, { ...call, minerHotkey: MINER.hotkey }, nowMs) ===
      "object",
  );
  assert.equal(
    await check(service.signatureGuard, policy, { ...call, minerHotkey: UNREGISTERED.hotkey }, nowMs),
    "nonce_reused",
  );
});

Deno.test("never synced: scored-predictions' policy verifies signature and nonce, skips the metagraph checks", async () => {
  await using service = await openTestService({ clock: new ManualClock(Date.now()) });
  const nowMs = service.clock.now();
  const policy: SignaturePolicy = { role: "validator", neverSynced: "skip_metagraph" };
  const call = { signer: testSigner("anyone"), method: "GET", path: SCORED, nonce: "scored-nonce-0000001" };
  const signed = await check(service.signatureGuard, policy, call, nowMs);
  assert.ok(typeof signed === "object");
  assert.equal(signed.metagraph, "never_synced");
  assert.equal(signed.neuron, null);
  assert.equal(await check(service.signatureGuard, policy, call, nowMs), "nonce_reused");
  const late = await check(
    service.signatureGuard,
    policy,
    { ...call, nonce: "scored-nonce-0000002" },
    nowMs - 60_000,
  );
  assert.equal(late, "timestamp_out_of_window");
  assert.equal(
    await check(
      service.signatureGuard,
      { role: "validator" },
      { ...call, nonce: "scored-nonce-0000003" },
      nowMs,
    ),
    "metagraph_unavailable",
    "other routes refuse",
  );
});

Deno.test("once synced, scored-predictions' policy runs every metagraph check; stale refuses it too", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: [MINER], events: 0 });
  await using service = loop.service;
  const policy: SignaturePolicy = { role: "validator", neverSynced: "skip_metagraph" };
  const call = { signer: testSigner("anyone"), method: "GET", path: SCORED };
  assert.equal(
    await check(service.signatureGuard, policy, call, service.clock.now()),
    "hotkey_not_in_metagraph",
  );
  const signed = await check(
    service.signatureGuard,
    policy,
    { ...call, signer: VALIDATOR },
    service.clock.now(),
  );
  assert.ok(typeof signed === "object");
  assert.equal(signed.metagraph, "fresh");
  service.clock.advance(3 * 300_000 + 1);
  assert.equal(
    await check(service.signatureGuard, policy, call, service.clock.now()),
    "metagraph_unavailable",
  );
});

Deno.test("the miner role: no permit or rate step, and the signer itself must be registered", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: [MINER], events: 0 });
  await using service = loop.service;
  const policy: SignaturePolicy = { role: "miner" };
  const call = { signer: MINER, method: "POST", path: "/v1/agents/submit-agent", body: "{}" };
  const signed = await check(service.signatureGuard, policy, call, service.clock.now());
  assert.ok(typeof signed === "object");
  assert.deepEqual(signed.miner, { hotkey: MINER.hotkey, orgId: loop.orgId });
  assert.equal(
    await check(service.signatureGuard, policy, { ...call, signer: VALIDATOR }, service.clock.now()),
    "miner_not_registered",
  );
  await assert.rejects(service.signatureGuard.checkSigner(UNREGISTERED.hotkey), {
    code: "hotkey_not_in_metagraph",
  });
  await service.signatureGuard.checkSigner(MINER.hotkey);
});
