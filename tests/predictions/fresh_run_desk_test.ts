/**
 * FreshRunDesk (the `requestFresh` of `POST /v1/predictions/query`) on a real service: which events
 * are queued, already queued or refused and why, the assignments each queued round gets, and both
 * hourly limits under concurrent requests on two service instances sharing one store.
 */
import assert from "node:assert/strict";
import { ELIGIBILITY_TTL_MS, type FreshRunOutcome } from "../../actors/predictions/mod.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { overriding } from "../support/access.ts";
import { agentPredictionId } from "../../storage/assignment_record.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { eventRecord, putEvents, resolved } from "../support/events.ts";
import type { TestService } from "../support/test_service.ts";
import {
  agentCode,
  type Loop,
  loopNeuron,
  openLoop,
  openSecondInstance,
  registerMiner,
  testSigner,
  uploadAgent,
} from "../support/validator_loop.ts";

const VALIDATOR = testSigner("fresh-validator");

/** The outcomes as `id → "status[:round|:reason]"`, in the map's order. */
function summary(outcomes: Map<string, FreshRunOutcome>): [string, string][] {
  return [...outcomes].map((
    [id, o],
  ) => [id, o.status === "refused" ? `refused:${o.reason}` : `${o.status}:${o.round}`]);
}

/** Each miner's current agent version, by the loop's metagraph order. */
async function minerVersions(loop: Loop): Promise<string[]> {
  const miners = loop.source.current.neurons.filter((neuron) => !neuron.validatorPermit);
  const states = await Promise.all(miners.map((m) => loop.service.storage.agents.minerState(m.hotkey)));
  return states.map((state) => state!.currentVersionId);
}

/** The ids of the assignments of `round` on `eventId` that exist, over the loop's miners. */
async function roundIds(loop: Loop, eventId: string, round: number): Promise<string[]> {
  const ids = (await minerVersions(loop)).map((agentVersionId) =>
    agentPredictionId({ agentVersionId, eventId, round })
  );
  const found = await Promise.all(ids.map((id) => loop.service.storage.assignments.get(id)));
  return ids.filter((_, index) => found[index]?.status === "available");
}

Deno.test("requestFresh queues the next round for every eligible miner on pool events and refuses the rest", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: 3, events: 4 });
  try {
    const nowMs = loop.service.clock.now();
    const far = eventRecord("ev-far", nowMs, { endsInHours: 24 * 30 });
    const done = resolved(eventRecord("ev-done", nowMs), nowMs);
    await putEvents(loop.service.storage, [far, done], nowMs);
    await loop.sync();
    const [e0, e1, e2] = loop.events.map((event) => event.id) as [string, string, string];
    const desk = loop.service.predictions.freshRuns;

    assert.deepEqual(summary(await desk.request("org_a", [e1, far.id, e0, done.id])), [
      [e1, "queued:1"],
      [far.id, "refused:not_in_pool"],
      [e0, "queued:1"],
      [done.id, "refused:not_in_pool"],
    ]);
    assert.equal((await roundIds(loop, e0, 1)).length, 3, "one round-1 assignment per miner");
    assert.equal((await roundIds(loop, e1, 1)).length, 3);
    assert.equal(await loop.service.storage.assignments.latestRound(e2), 0);
    assert.equal(await loop.service.storage.assignments.latestRound(far.id), null);

    assert.deepEqual(summary(await desk.request("org_b", [e0, e2])), [
      [e0, "already_queued:1"],
      [e2, "queued:1"],
    ]);
    assert.equal(await loop.service.storage.assignments.latestRound(e0), 1, "nothing new for e0");
  } finally {
    await loop.service.close();
  }
});

Deno.test("without an eligible miner's agent nothing is queued (and nothing reserved)", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: 0, events: 2 });
  try {
    const [e0] = loop.events.map((event) => event.id) as [string];
    const desk = loop.service.predictions.freshRuns;
    assert.deepEqual(summary(await desk.request("org_a", [e0, "unknown"])), [
      [e0, "refused:no_eligible_agents"],
      ["unknown", "refused:not_in_pool"],
    ]);
    assert.equal(await loop.service.storage.assignments.latestRound(e0), null);

    const miner = testSigner("late-miner");
    const { neurons, block } = loop.source.current;
    loop.source.current = {
      ...loop.source.current,
      block: block + 1,
      neurons: [...neurons, loopNeuron(7, miner.hotkey)],
    };
    loop.service.clock.advance(1);
    await registerMiner(loop.service.request, loop.orgId, miner.hotkey);
    await uploadAgent(loop.service.storage, miner.hotkey, agentCode("late"), loop.service.clock.now());
    await loop.sync();
    assert.deepEqual(summary(await desk.request("org_a", [e0])), [[e0, "queued:1"]]);
  } finally {
    await loop.service.close();
  }
});

Deno.test("an organisation queues at most FGW_FRESH_RUNS_PER_HOUR events per hour; refusals and repeats do not count", async () => {
  const loop = await openLoop({
    validators: [VALIDATOR],
    miners: 2,
    events: 4,
    env: { FGW_FRESH_RUNS_PER_HOUR: "2" },
  });
  try {
    const [e0, e1, e2, e3] = loop.events.map((event) => event.id) as [string, string, string, string];
    const desk = loop.service.predictions.freshRuns;
    assert.deepEqual(summary(await desk.request("org_b", [e0])), [[e0, "queued:1"]]);
    assert.deepEqual(summary(await desk.request("org_a", ["unknown", e0, e1, e2, e3])), [
      ["unknown", "refused:not_in_pool"],
      [e0, "already_queued:1"],
      [e1, "queued:1"],
      [e2, "queued:1"],
      [e3, "refused:org_hourly_limit"],
    ]);
    assert.equal(await loop.service.storage.assignments.latestRound(e3), 0, "nothing queued for e3");
    assert.deepEqual(summary(await desk.request("org_a", [e3])), [[e3, "refused:org_hourly_limit"]]);
    assert.deepEqual(summary(await desk.request("org_b", [e3])), [[e3, "queued:1"]]);
  } finally {
    await loop.service.close();
  }
});

interface Two {
  loop: Loop;
  a: TestService;
  b: TestService;
}

async function openTwo(
  storage: Storage,
  another: () => Promise<Storage>,
  events: number,
  env = {},
): Promise<Two> {
  const loop = await openLoop({ validators: [VALIDATOR], miners: 3, events, storage, env });
  const b = await openSecondInstance(loop, await another(), env);
  return { loop, a: loop.service, b };
}

async function closeTwo({ a, b }: Two): Promise<void> {
  await b.close();
  await a.close();
}

adapterTest(
  "requests racing on two instances queue each event once, with one round of assignments",
  { needs: "concurrency" },
  async (adapter) => {
    const two = await openTwo(adapter.storage, adapter.openAnother, 6);
    try {
      const ids = two.loop.events.map((event) => event.id);
      const replies = await Promise.all(Array.from({ length: 12 }, (_, index) => {
        const order = index % 2 ? ids.toReversed() : ids;
        return (index % 3 ? two.a : two.b).predictions.freshRuns.request(`org_${index}`, order);
      }));
      for (const id of ids) {
        const outcomes = replies.map((reply) => summary(new Map([[id, reply.get(id)!]]))[0]![1]);
        assert.equal(outcomes.filter((o) => o === "queued:1").length, 1, `${id} queued once`);
        assert.equal(outcomes.filter((o) => o === "already_queued:1").length, 11);
        assert.equal(await two.a.storage.assignments.latestRound(id), 1);
        assert.equal((await roundIds(two.loop, id, 1)).length, 3);
      }
    } finally {
      await closeTwo(two);
    }
  },
);

adapterTest(
  "an organisation racing past its limit on two instances queues exactly the limit",
  { needs: "concurrency" },
  async (adapter) => {
    const two = await openTwo(adapter.storage, adapter.openAnother, 20, { FGW_FRESH_RUNS_PER_HOUR: "5" });
    try {
      const ids = two.loop.events.map((event) => event.id);
      const replies = await Promise.all(
        Array.from(
          { length: 10 },
          (_, index) =>
            (index % 2 ? two.a : two.b).predictions.freshRuns.request(
              "org_a",
              ids.slice(2 * index, 2 * index + 2),
            ),
        ),
      );
      const queued = replies.flatMap((reply) => [...reply].filter(([, o]) => o.status === "queued"));
      assert.equal(queued.length, 5, "exactly the limit");
      const refused = replies.flatMap((reply) => [...reply.values()]).filter((o) => o.status === "refused");
      assert.ok(refused.every((o) => o.reason === "org_hourly_limit"));
      assert.equal(refused.length, 15);
      const rounds = await Promise.all(ids.map((id) => two.a.storage.assignments.latestRound(id)));
      assert.equal(rounds.filter((round) => round === 1).length, 5, "assignments only for the queued events");
    } finally {
      await closeTwo(two);
    }
  },
);

Deno.test("concurrent fresh-run requests share one eligibility look-up, and it is reused for a while", async () => {
  const real = await openKvStorage(":memory:");
  let lookups = 0;
  const orgs = overriding(real.orgs, {
    minerRegistration: (hotkey: string) => {
      lookups++;
      return real.orgs.minerRegistration(hotkey);
    },
  });
  const loop = await openLoop({ validators: [VALIDATOR], miners: 3, events: 4, storage: { ...real, orgs } });
  try {
    const ids = loop.events.map((event) => event.id);
    const neurons = loop.source.current.neurons.length;
    lookups = 0;
    const desk = loop.service.predictions.freshRuns;
    await Promise.all(ids.map((id) => desk.request(`org_${id}`, [id])));
    assert.ok(
      lookups <= neurons,
      `${lookups} registration reads for ${ids.length} requests (${neurons} neurons)`,
    );
    const before = lookups;
    await desk.request("org_again", [ids[0]!]);
    assert.equal(lookups, before, "the list found is reused");
    loop.service.clock.advance(ELIGIBILITY_TTL_MS + 1);
    await desk.request("org_later", [ids[1]!]);
    assert.ok(lookups > before, "looked up again once the reuse is over");
  } finally {
    await loop.service.close();
  }
});
