/**
 * The FreshRunStore contract, on both adapters: rounds, at most one fresh run per event per window,
 * at most `perOrg` newly queued events per organisation per window, in request order; and the same
 * under concurrent reservations on two handles (two service instances). On PostgreSQL the races run
 * only against a server (DATABASE_URL).
 */
import assert from "node:assert/strict";
import type { FreshRunLimits, FreshRunReservation } from "../../storage/fresh_run_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { seedQueue, targetFor, waitMs } from "../support/assignments.ts";

const HOUR: FreshRunLimits = { perOrg: 100, windowMs: 3_600_000 };

function ids(count: number, prefix = "ev"): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}-${String(index).padStart(3, "0")}`);
}

/** The reservations as `id → "status[:round]"`, in the map's order. */
function summary(reservations: Map<string, FreshRunReservation>): [string, string][] {
  return [...reservations].map(([id, r]) => [id, "round" in r ? `${r.status}:${r.round}` : r.status]);
}

adapterTest(
  "a fresh run takes round 1, then already_queued within the window, for anyone",
  async ({ storage }) => {
    const first = await storage.freshRuns.reserve("org_a", ["ev-2", "ev-1"], HOUR);
    assert.deepEqual(summary(first), [["ev-2", "queued:1"], ["ev-1", "queued:1"]]);
    const again = await storage.freshRuns.reserve("org_b", ["ev-1", "ev-3", "ev-2"], HOUR);
    assert.deepEqual(summary(again), [["ev-1", "already_queued:1"], ["ev-3", "queued:1"], [
      "ev-2",
      "already_queued:1",
    ]]);
    assert.deepEqual(summary(await storage.freshRuns.reserve("org_a", [], HOUR)), []);
  },
);

adapterTest(
  "an organisation queues at most perOrg events per window, in request order",
  async ({ storage }) => {
    const limits = { perOrg: 3, windowMs: 3_600_000 };
    await storage.freshRuns.reserve("org_b", ["ev-000"], limits);
    const first = await storage.freshRuns.reserve("org_a", ids(5), limits);
    assert.deepEqual(summary(first), [
      ["ev-000", "already_queued:1"],
      ["ev-001", "queued:1"],
      ["ev-002", "queued:1"],
      ["ev-003", "queued:1"],
      ["ev-004", "org_limit"],
    ]);
    assert.deepEqual(summary(await storage.freshRuns.reserve("org_a", ["ev-004", "ev-001"], limits)), [
      ["ev-004", "org_limit"],
      ["ev-001", "already_queued:1"],
    ]);
    assert.deepEqual(summary(await storage.freshRuns.reserve("org_b", ["ev-004"], limits)), [
      ["ev-004", "queued:1"],
    ]);
    assert.deepEqual(
      summary(await storage.freshRuns.reserve("org_c", ["ev-005"], { ...limits, perOrg: 0 })),
      [
        ["ev-005", "org_limit"],
      ],
    );
  },
);

adapterTest(
  "after the window an event takes the next round and the organisation's count is free",
  async ({ storage }) => {
    const limits = { perOrg: 2, windowMs: 400 };
    assert.deepEqual(summary(await storage.freshRuns.reserve("org_a", ["ev-1", "ev-2", "ev-3"], limits)), [
      ["ev-1", "queued:1"],
      ["ev-2", "queued:1"],
      ["ev-3", "org_limit"],
    ]);
    await waitMs(500);
    assert.deepEqual(summary(await storage.freshRuns.reserve("org_a", ["ev-1", "ev-3", "ev-2"], limits)), [
      ["ev-1", "queued:2"],
      ["ev-3", "queued:1"],
      ["ev-2", "org_limit"],
    ]);
  },
);

adapterTest("a fresh run takes the round after the event's latest assignment round", async ({ storage }) => {
  const { events } = await seedQueue(storage, { miners: 1, events: 2 });
  const [event, other] = events as [typeof events[0], typeof events[0]];
  await storage.assignments.ensure([targetFor(0, event, { round: 4 })]);
  assert.equal(await storage.assignments.latestRound(event.id), 4);
  assert.deepEqual(summary(await storage.freshRuns.reserve("org_a", [event.id, other.id], HOUR)), [
    [event.id, "queued:5"],
    [other.id, "queued:1"],
  ]);
});

adapterTest("a batch of 100 ids is decided in order across the adapter's commits", async ({ storage }) => {
  const all = ids(100);
  const reply = await storage.freshRuns.reserve("org_a", all, { perOrg: 99, windowMs: 3_600_000 });
  assert.deepEqual(summary(reply), all.map((id, index) => [id, index < 99 ? "queued:1" : "org_limit"]));
  const next = await storage.freshRuns.reserve("org_b", all, HOUR);
  assert.deepEqual(summary(next), all.map((id, index) => [id, index < 99 ? "already_queued:1" : "queued:1"]));
});

/** Counts each event's `queued` replies over all `replies`. */
function queuedPerEvent(replies: Map<string, FreshRunReservation>[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const reply of replies) {
    for (const [id, r] of reply) if (r.status === "queued") counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

adapterTest(
  "racing reservations on two instances queue each event once, whatever order they name them in",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    const all = ids(100);
    const replies = await Promise.all(Array.from({ length: 16 }, (_, index) => {
      const order = index % 2 ? all.toReversed() : all.toSorted(() => Math.random() - 0.5);
      return (index % 4 < 2 ? adapter.storage : other).freshRuns.reserve(`org_${index}`, order, HOUR);
    }));
    const queued = queuedPerEvent(replies);
    assert.deepEqual([...queued.keys()].toSorted(), all, "every event queued");
    assert.ok([...queued.values()].every((n) => n === 1), "no event queued twice");
    for (const reply of replies) {
      assert.equal(reply.size, 100);
      for (const r of reply.values()) assert.deepEqual("round" in r && r.round, 1);
    }
  },
);

adapterTest(
  "an organisation racing past its limit on two instances never exceeds it",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    const limits = { perOrg: 25, windowMs: 3_600_000 };
    const replies = await Promise.all(
      Array.from(
        { length: 20 },
        (_, index) =>
          (index % 2 ? adapter.storage : other).freshRuns.reserve("org_a", ids(5, `batch${index}`), limits),
      ),
    );
    const queued = replies.flatMap((reply) => [...reply.values()]).filter((r) => r.status === "queued");
    assert.equal(queued.length, 25, "exactly the limit was queued");
    assert.deepEqual(summary(await adapter.storage.freshRuns.reserve("org_a", ["late"], limits)), [
      ["late", "org_limit"],
    ]);
  },
);
