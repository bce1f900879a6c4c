/**
 * The validator loop as a validator and an operator see it: the demo metagraph file synced, miners
 * registered through the admin API, agents uploaded, assignments synced, then lease and submit
 * with signed requests, and the assignment's state moving along.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { base64 } from "@scure/base";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { signerFromSecretHex } from "../../actors/validators/mod.ts";
import { LeaseReplySchema } from "../../routes/validators/validators_api.ts";
import { ADMIN_TOKEN, createOrg, errorCode } from "../support/access.ts";
import { putEvents } from "../support/events.ts";
import { runJobOnce } from "../support/jobs.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import {
  agentCode,
  LEASE,
  openLoop,
  poolEvents,
  registerMiner,
  signedInit,
  submissionFor,
  SUBMIT,
  testSigner,
  uploadAgent,
} from "../support/validator_loop.ts";

const DEMO = fileURLToPath(new URL("../../actors/validators/demo_metagraph.json", import.meta.url));
/** The demo file's uid 0 (validator, permit) and uid 4 (miner): seeds 0x11…11 and 0x22…22. */
const VALIDATOR = signerFromSecretHex("11".repeat(32));
const MINER = signerFromSecretHex("22".repeat(32));
/** The demo file's uid 5: Alice's dev account. */
const ALICE = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";

async function syncAll(service: TestService): Promise<void> {
  const at = { leases: service.storage.jobLeases, nowMs: service.clock.now() };
  await runJobOnce(service.metagraph.sync, at);
  await runJobOnce(service.assignmentSync, at);
}

async function lease(service: TestService, signer = VALIDATOR) {
  const response = await service.request(
    LEASE,
    signedInit(signer, "GET", LEASE, { nowMs: service.clock.now() }),
  );
  assert.equal(response.status, 200);
  return LeaseReplySchema.parse(await response.json());
}

async function submit(service: TestService, body: unknown, signer = VALIDATOR): Promise<Response> {
  const text = JSON.stringify(body);
  return await service.request(
    SUBMIT,
    signedInit(signer, "POST", SUBMIT, { nowMs: service.clock.now(), body: text }),
  );
}

Deno.test("a validator's day: demo metagraph synced, miners registered, agents uploaded, lease, submit, submitted", async () => {
  await using service = await openTestService({
    env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_METAGRAPH_SOURCE: "file", FGW_METAGRAPH_FILE: DEMO },
    clock: new ManualClock(Date.now()),
  });
  const nowMs = service.clock.now();
  const events = poolEvents(2, nowMs);
  await putEvents(service.storage, events, nowMs);
  const before = await service.request(LEASE, signedInit(VALIDATOR, "GET", LEASE, { nowMs }));
  assert.equal(before.status, 503, "no metagraph yet: fail closed");
  assert.equal(await errorCode(before), "metagraph_unavailable");

  const orgId = await createOrg(service.request, "Forecasters");
  await registerMiner(service.request, orgId, MINER.hotkey);
  await registerMiner(service.request, orgId, ALICE);
  await uploadAgent(service.storage, MINER.hotkey, agentCode("demo-miner"), nowMs);
  await syncAll(service);

  // The miner's agent on its two events, soonest-ending first; Alice has no agent yet.
  const first = (await lease(service)).assignment!;
  assert.deepEqual(first.miner, { uid: 4, hotkey: MINER.hotkey });
  assert.equal(first.event.id, events[0]!.id);
  assert.equal(new TextDecoder().decode(base64.decode(first.agent.code)), agentCode("demo-miner"));
  assert.equal((await service.storage.assignments.get(first.agentPredictionId))?.status, "in_progress");
  const ack = await submit(service, submissionFor(first.agentPredictionId, events[0]!));
  assert.equal(ack.status, 200);
  const acked = await ack.json();
  assert.deepEqual(acked, { ok: true, agentPredictionId: first.agentPredictionId, status: "queued" });
  assert.equal((await service.storage.assignments.get(first.agentPredictionId))?.status, "submitted");

  const second = (await lease(service)).assignment!;
  assert.equal(second.event.id, events[1]!.id);
  assert.deepEqual(await lease(service), { assignment: null, reason: "none_available" });

  // Alice uploads an agent: the next assignment sync gives her work.
  await uploadAgent(service.storage, ALICE, agentCode("alice"), nowMs);
  await syncAll(service);
  const alices = (await lease(service)).assignment!;
  assert.deepEqual(alices.miner, { uid: 5, hotkey: ALICE });

  // A retry of the first submission, later: the same ack, nothing changes.
  service.clock.advance(5_000);
  const retry = await submit(service, submissionFor(first.agentPredictionId, events[0]!));
  assert.deepEqual(await retry.json(), acked);
  assert.equal(
    (await service.storage.assignments.getPrediction(first.agentPredictionId))?.predictedAtMs,
    nowMs,
  );
});

/** Lets the storage's clock pass a 1 ms lease (leases expire on the storage's clock, not the service's). */
function pastLease(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 20));
}

Deno.test("after its lease expired the holder may still submit within the grace while nobody re-claimed it", async () => {
  const loop = await openLoop({
    validators: [VALIDATOR],
    miners: 1,
    events: 1,
    env: { FGW_LEASE_MS: "1", FGW_LEASE_GRACE_MS: "600000" },
  });
  await using service = loop.service;
  const leased = (await lease(service)).assignment!;
  await pastLease();
  const response = await submit(service, submissionFor(leased.agentPredictionId, loop.events[0]!));
  assert.equal(response.status, 200);
  assert.equal((await service.storage.assignments.get(leased.agentPredictionId))?.status, "submitted");
});

Deno.test("later than the grace after expiry, the holder's submission is 409 lease_not_held", async () => {
  const loop = await openLoop({
    validators: [VALIDATOR],
    miners: 1,
    events: 1,
    env: { FGW_LEASE_MS: "1", FGW_LEASE_GRACE_MS: "0" },
  });
  await using service = loop.service;
  const leased = (await lease(service)).assignment!;
  await pastLease();
  const response = await submit(service, submissionFor(leased.agentPredictionId, loop.events[0]!));
  assert.equal(response.status, 409);
  assert.equal(await errorCode(response), "lease_not_held");
  assert.equal(await service.storage.assignments.getPrediction(leased.agentPredictionId), null);
});

Deno.test("an expired lease is re-claimed by the next lease call; the former holder then gets 409, the new one submits", async () => {
  const other = testSigner("validator-reclaimer");
  const loop = await openLoop({
    validators: [VALIDATOR, other],
    miners: 1,
    events: 1,
    env: { FGW_LEASE_MS: "1", FGW_LEASE_GRACE_MS: "600000" },
  });
  await using service = loop.service;
  const first = (await lease(service)).assignment!;
  await pastLease();
  const again = (await lease(service, other)).assignment!;
  assert.equal(again.agentPredictionId, first.agentPredictionId, "the expired lease was reclaimed");
  const body = submissionFor(first.agentPredictionId, loop.events[0]!);
  const former = await submit(service, body);
  assert.equal(former.status, 409);
  assert.equal(await errorCode(former), "lease_not_held");
  assert.equal((await submit(service, body, other)).status, 200);
  assert.equal(
    (await service.storage.assignments.getPrediction(first.agentPredictionId))?.validatorHotkey,
    other.hotkey,
  );
});
