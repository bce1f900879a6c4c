/**
 * A validator completion names the lease its agent runs under (`agentPredictionId`): the signing
 * validator must hold it, for the miner in `x-miner-hotkey`, not yet submitted, live or within
 * `FGW_LEASE_GRACE_MS` of its expiry; otherwise 409 `lease_not_held` and nothing is charged
 * (docs/gateway.md, "validator completions").
 */
import assert from "node:assert/strict";
import { addCredits, errorCode } from "../support/access.ts";
import { allLedgerEntries } from "../support/ledger.ts";
import { leaseAs, type Loop, openLoop, signedInit, submitAs, testSigner } from "../support/validator_loop.ts";
import { waitMs } from "../support/assignments.ts";
import { ECHO_CALL, usageOf } from "./gateway_service.ts";
import type { Signer } from "../../actors/validators/mod.ts";

const VALIDATORS = [testSigner("validator-0"), testSigner("validator-1")];
const [FIRST, SECOND] = VALIDATORS as [Signer, Signer];
const MINERS = [testSigner("miner-0"), testSigner("miner-1")];
const PATH = "/v1/gateway/validator/completions";
const CREDIT = 10_000n;

async function funded(env: Record<string, string> = {}): Promise<Loop> {
  const loop = await openLoop({ validators: VALIDATORS, miners: MINERS, events: 2, env });
  await addCredits(loop.service.request, loop.orgId, String(CREDIT), "miner-org-credit");
  return loop;
}

function call(loop: Loop, signer: Signer, minerHotkey: string, body: unknown): Promise<Response> {
  const init = signedInit(signer, "POST", PATH, {
    nowMs: loop.service.clock.now(),
    body: JSON.stringify(body),
    minerHotkey,
  });
  return loop.service.request(PATH, init);
}

/** Asserts `response` is 409 lease_not_held naming the lease. */
async function notHeld(response: Response, agentPredictionId: string): Promise<void> {
  const body = await response.json();
  assert.equal(response.status, 409, JSON.stringify(body));
  assert.equal(body.error.code, "lease_not_held");
  assert.equal(body.error.details.agentPredictionId, agentPredictionId);
}

/** The miner org's money and records are as funded: nothing held, charged or recorded. */
async function nothingCharged(loop: Loop): Promise<void> {
  const { billing } = loop.service.storage;
  const account = await billing.getAccount(loop.orgId);
  assert.deepEqual([account?.balanceMicro, account?.heldMicro], [CREDIT, 0n]);
  assert.deepEqual((await allLedgerEntries(billing, loop.orgId)).map((e) => e.kind), ["credit"]);
  assert.deepEqual(await usageOf(loop.service.request, loop.orgId), []);
  assert.deepEqual(await billing.listHolds(loop.orgId), []);
}

Deno.test("a validator completion without agentPredictionId is 400 naming it, and nothing is charged", async () => {
  const loop = await funded();
  await using _service = loop.service;
  const response = await call(loop, FIRST, MINERS[0]!.hotkey, ECHO_CALL);
  const body = await response.json();
  assert.equal(response.status, 400, JSON.stringify(body));
  assert.deepEqual(body.error.details.fields.map((f: { field: string }) => f.field), ["agentPredictionId"]);
  await nothingCharged(loop);
});

Deno.test("a lease held by another validator, for another miner, or unknown is 409 lease_not_held, and nothing is charged", async () => {
  const loop = await funded();
  await using _service = loop.service;
  const work = await leaseAs(loop.service, FIRST);
  const other = MINERS.find((miner) => miner.hotkey !== work.minerHotkey)!;
  const named = { ...ECHO_CALL, agentPredictionId: work.agentPredictionId };
  await notHeld(await call(loop, SECOND, work.minerHotkey, named), work.agentPredictionId);
  await notHeld(await call(loop, FIRST, other.hotkey, named), work.agentPredictionId);
  const unknown = { ...ECHO_CALL, agentPredictionId: "ap_00000000000000000000000000000000" };
  await notHeld(await call(loop, FIRST, work.minerHotkey, unknown), unknown.agentPredictionId);
  await nothingCharged(loop);
  const held = await call(loop, FIRST, work.minerHotkey, named);
  assert.equal(held.status, 200, "the holder, for the lease's miner, is billed");
  await held.body?.cancel();
});

Deno.test("a submitted lease is 409 lease_not_held, and nothing is charged", async () => {
  const loop = await funded();
  await using _service = loop.service;
  const work = await leaseAs(loop.service, FIRST);
  assert.equal(await submitAs(loop.service, FIRST, work), 200);
  const named = { ...ECHO_CALL, agentPredictionId: work.agentPredictionId };
  await notHeld(await call(loop, FIRST, work.minerHotkey, named), work.agentPredictionId);
  await nothingCharged(loop);
});

Deno.test("an expired lease is billed within FGW_LEASE_GRACE_MS and 409 lease_not_held past it, nothing charged", async () => {
  const within = await funded({ FGW_LEASE_MS: "50", FGW_LEASE_GRACE_MS: "600000" });
  await using _within = within.service;
  const past = await funded({ FGW_LEASE_MS: "50", FGW_LEASE_GRACE_MS: "1" });
  await using _past = past.service;
  const [graced, expired] = [await leaseAs(within.service, FIRST), await leaseAs(past.service, FIRST)];
  // Lease expiry is on the storage's clock (the host's, for Deno KV): wait it out.
  await waitMs(120);
  const late = await call(within, FIRST, graced.minerHotkey, {
    ...ECHO_CALL,
    agentPredictionId: graced.agentPredictionId,
  });
  assert.equal(late.status, 200, "within the grace");
  await late.body?.cancel();
  const named = { ...ECHO_CALL, agentPredictionId: expired.agentPredictionId };
  await notHeld(await call(past, FIRST, expired.minerHotkey, named), expired.agentPredictionId);
  await nothingCharged(past);
  assert.equal(await errorCode(await call(past, FIRST, expired.minerHotkey, named)), "lease_not_held");
});
