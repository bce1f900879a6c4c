import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import type { LogLine } from "../../actors/kernel/mod.ts";
import { AssignmentSyncJob } from "../../actors/validators/mod.ts";
import { agentPredictionId } from "../../storage/assignment_record.ts";
import { adminInit } from "../support/access.ts";
import { eventRecord, putEvents, resolved } from "../support/events.ts";
import { runJobOnce } from "../support/jobs.ts";
import { openTestService } from "../support/test_service.ts";
import { agentCode, type Loop, openLoop, testSigner, uploadAgent } from "../support/validator_loop.ts";

const VALIDATOR = testSigner("validator-0");

/** The service's own job, and the same job with a log a test can read. */
function observedJob(loop: Loop, fullEvery = 10) {
  const records: LogLine[] = [];
  const { service } = loop;
  const job = new AssignmentSyncJob({
    assignments: service.storage.assignments,
    orgs: service.storage.orgs,
    agents: service.storage.agents,
    metagraph: service.metagraph.view,
    metagraphStore: service.storage.metagraph,
    netuid: 41,
    catalog: service.catalog.view,
    pool: service.catalog.routes.pool,
    intervalMs: 30_000,
    fullEvery,
    clock: service.clock.now,
    log: (record) => records.push(record),
  });
  const run = async () => {
    await runJobOnce(job, { leases: service.storage.jobLeases, nowMs: service.clock.now() });
    return records.at(-1)!;
  };
  return { job, run };
}

async function statusOf(loop: Loop, minerHotkey: string, eventId: string) {
  const state = await loop.service.storage.agents.minerState(minerHotkey);
  const id = agentPredictionId({ agentVersionId: state!.currentVersionId, eventId, round: 0 });
  return (await loop.service.storage.assignments.get(id))?.status ?? "absent";
}

Deno.test("an assignment exists for each eligible miner's agent × pool event, and for nothing else", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: 2, events: 2 });
  await using service = loop.service;
  const nowMs = service.clock.now();
  const outOfPool = [
    eventRecord("ends-soon", nowMs, { endsInHours: 12 }),
    eventRecord("ends-late", nowMs, { endsInHours: 24 * 8 }),
    eventRecord("sure-thing", nowMs, {
      currentOutcomePrices: { "sure-thing-yes": 0.99, "sure-thing-no": 0.01 },
    }),
    resolved(eventRecord("settled", nowMs), nowMs),
  ];
  await putEvents(service.storage, outOfPool, nowMs);
  const unregistered = testSigner("miner-unregistered");
  loop.source.current = {
    ...loop.source.current,
    neurons: [...loop.source.current.neurons, {
      ...loop.source.current.neurons[1]!,
      uid: 9,
      hotkey: unregistered.hotkey,
    }],
  };
  await uploadAgent(service.storage, unregistered.hotkey, agentCode("unregistered"), nowMs);
  service.clock.advance(1);
  await loop.sync();
  const miners = [testSigner("miner-0"), testSigner("miner-1")];
  for (const miner of miners) {
    for (const event of loop.events) assert.equal(await statusOf(loop, miner.hotkey, event.id), "available");
    for (const event of outOfPool) {
      assert.equal(await statusOf(loop, miner.hotkey, event.id), "absent", event.id);
    }
  }
  assert.equal(
    await statusOf(loop, unregistered.hotkey, loop.events[0]!.id),
    "absent",
    "not registered to an org",
  );
});

Deno.test("between full passes only the changes are written; a full pass writes every target again", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: 2, events: 3 });
  await using _service = loop.service;
  const { run } = observedJob(loop, 3);
  assert.equal((await run())["full"], true, "an instance's first pass is full");
  assert.equal((await run())["ensured"], 0, "nothing changed");
  await putEvents(
    loop.service.storage,
    [eventRecord("new-event", loop.service.clock.now())],
    loop.service.clock.now(),
  );
  const changed = await run();
  assert.equal(changed["full"], false);
  assert.equal(changed["ensured"], 2, "the new event, once per miner");
  assert.equal(changed["created"], 2);
  const full = await run();
  assert.equal(full["full"], true, "every third pass is full");
  assert.equal(full["ensured"], 8);
  assert.equal(full["created"], 0, "idempotent");
});

Deno.test("a new agent version supersedes the old version's unleased assignments; leased ones stay", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: 1, events: 2 });
  await using service = loop.service;
  const miner = testSigner("miner-0");
  const old = await service.storage.agents.minerState(miner.hotkey);
  const claim = await service.storage.assignments.claim(VALIDATOR.hotkey, { leaseMs: 600_000, maxLive: 10 });
  assert.equal(claim.kind, "claimed");
  service.clock.advance(60_000);
  await uploadAgent(service.storage, miner.hotkey, agentCode("miner-0 v2"), service.clock.now());
  await loop.sync();
  const oldIds = loop.events.map((event) =>
    agentPredictionId({ agentVersionId: old!.currentVersionId, eventId: event.id, round: 0 })
  );
  const statuses = await Promise.all(
    oldIds.map(async (id) => (await service.storage.assignments.get(id))?.status),
  );
  assert.deepEqual(statuses.toSorted(), ["in_progress", "retired"]);
  for (const event of loop.events) assert.equal(await statusOf(loop, miner.hotkey, event.id), "available");
});

Deno.test("an event leaving the pool, or a miner leaving the org, retires its unleased assignments", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: 2, events: 2 });
  await using service = loop.service;
  const [settling, staying] = loop.events;
  const nowMs = service.clock.now();
  await putEvents(service.storage, [resolved(settling!, nowMs)], nowMs);
  await loop.sync();
  for (const miner of [testSigner("miner-0"), testSigner("miner-1")]) {
    assert.equal(await statusOf(loop, miner.hotkey, settling!.id), "retired");
    assert.equal(await statusOf(loop, miner.hotkey, staying!.id), "available");
  }
  const leaving = testSigner("miner-1");
  const response = await service.request(
    `/admin/v1/orgs/${loop.orgId}/miners/${leaving.hotkey}`,
    adminInit("DELETE"),
  );
  assert.equal(response.status, 200);
  await loop.sync();
  assert.equal(await statusOf(loop, leaving.hotkey, staying!.id), "retired");
  assert.equal(await statusOf(loop, testSigner("miner-0").hotkey, staying!.id), "available");
});

Deno.test("a miner that left the metagraph has its unleased assignments retired, also by another instance's full pass", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: 2, events: 1 });
  await using service = loop.service;
  const gone = testSigner("miner-1");
  loop.source.current = {
    ...loop.source.current,
    neurons: loop.source.current.neurons.filter((neuron) => neuron.hotkey !== gone.hotkey),
  };
  service.clock.advance(1);
  await runJobOnce(service.metagraph.sync, { leases: service.storage.jobLeases, nowMs: service.clock.now() });
  const { run } = observedJob(loop);
  assert.equal((await run())["full"], true);
  assert.equal(await statusOf(loop, gone.hotkey, loop.events[0]!.id), "retired");
  assert.equal(await statusOf(loop, testSigner("miner-0").hotkey, loop.events[0]!.id), "available");
});

Deno.test("before the metagraph has synced the pass does nothing", async () => {
  await using service = await openTestService({ clock: new ManualClock(Date.now()) });
  await putEvents(service.storage, [eventRecord("e1", service.clock.now())], service.clock.now());
  await runJobOnce(service.assignmentSync, { leases: service.storage.jobLeases, nowMs: service.clock.now() });
  assert.deepEqual(
    await service.storage.assignments.claim(VALIDATOR.hotkey, { leaseMs: 1_000, maxLive: 1 }),
    {
      kind: "none",
    },
  );
});
