/**
 * The AssignmentStore contract under concurrency (the rest of the suite is in
 * assignment_store_contract_test.ts): claims, submissions and limits raced on one handle and on two
 * handles (two service instances). On PostgreSQL these run only against a server (DATABASE_URL).
 */
import assert from "node:assert/strict";
import { StoreRefusal } from "../../storage/store_refusal.ts";
import type { AssignmentStore, Claimed, ClaimResult } from "../../storage/assignment_store.ts";
import { adapterTest, type AdapterUnderTest } from "../support/adapters.ts";
import { claimAll, idOf, LONG_LEASE, seedQueue, submission, waitMs } from "../support/assignments.ts";

/**
 * How many assignments the big race leases: 2,000 on a PostgreSQL server (the 10,000-assignment
 * race runs over HTTP on two instances: tests/validators/lease_race_test.ts); 1,000 on KV (each
 * claim is a commit to the store's file, a few milliseconds on a busy disk).
 */
function bigQueue(kind: AdapterUnderTest["kind"]): { miners: number; events: number } {
  return kind === "kv" ? { miners: 10, events: 100 } : { miners: 40, events: 50 };
}

/**
 * A race of this suite. Its PostgreSQL variant needs statements that run at the same instant, so
 * without DATABASE_URL (on the embedded PGlite, one statement at a time) it is reported as ignored.
 */
function raceTest(name: string, fn: (adapter: AdapterUnderTest) => Promise<void>): void {
  adapterTest(name, { needs: "concurrency" }, fn);
}

/** Asserts every assignment was leased exactly once, and is held by the claimer that got it. */
async function assertLeasedOnce(store: AssignmentStore, claims: Claimed[][], expectedIds: string[]) {
  const all = claims.flat();
  const ids = all.map((claim) => claim.assignment.agentPredictionId);
  assert.equal(new Set(ids).size, ids.length, "no assignment was handed out twice");
  assert.deepEqual(ids.toSorted(), expectedIds.toSorted(), "none was lost");
  const stored = await Promise.all(ids.map((id) => store.get(id)));
  all.forEach((claim, index) => {
    const now = stored[index]!;
    assert.equal(now.status, "in_progress");
    assert.equal(now.leaseCount, 1);
    assert.deepEqual(now.lease, claim.assignment.lease, "held by the claimer that got it");
  });
}

raceTest("32 concurrent claimers lease every assignment exactly once", async ({ kind, storage }) => {
  const { targets } = await seedQueue(storage, bigQueue(kind));
  const claims = await Promise.all(
    Array.from({ length: 32 }, (_, v) => claimAll(storage.assignments, `5Validator${v}`)),
  );
  await assertLeasedOnce(storage.assignments, claims, targets.map(idOf));
  assert.deepEqual(await storage.assignments.claim("5Validator0", LONG_LEASE), { kind: "none" });
});

raceTest("claimers on two instances never hand out one assignment twice", async (adapter) => {
  const { targets } = await seedQueue(adapter.storage, { miners: 10, events: 50 });
  const other = await adapter.openAnother();
  const claims = await Promise.all(
    Array.from({ length: 32 }, (_, v) => claimAll((v % 2 ? other : adapter.storage).assignments, `5V${v}`)),
  );
  await assertLeasedOnce(adapter.storage.assignments, claims, targets.map(idOf));
});

raceTest("concurrent claims keep the miners' lease counts within one of each other", async (adapter) => {
  await seedQueue(adapter.storage, { miners: 20, events: 10 });
  const other = await adapter.openAnother();
  const leased = new Map<string, number>();
  for (let burst = 0; burst < 2; burst++) {
    const results = await Promise.all(
      Array.from(
        { length: 32 },
        (_, v) => (v % 2 ? other : adapter.storage).assignments.claim(`5V${v}`, LONG_LEASE),
      ),
    );
    for (const result of results) {
      const miner = (result as Claimed).assignment.minerHotkey;
      leased.set(miner, (leased.get(miner) ?? 0) + 1);
    }
  }
  const counts = [...leased.values()];
  assert.equal(leased.size, 20);
  assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `leases per miner: ${counts.join(",")}`);
});

raceTest("concurrent claimers of a single miner's work all get some while work is left", async (adapter) => {
  const { targets } = await seedQueue(adapter.storage, { miners: 1, events: 40 });
  const other = await adapter.openAnother();
  const results = await Promise.all(
    Array.from(
      { length: 32 },
      (_, v) => (v % 2 ? other : adapter.storage).assignments.claim(`5V${v}`, LONG_LEASE),
    ),
  );
  const ids = results.map((result) => (result as Claimed).assignment?.agentPredictionId);
  assert.equal(new Set(ids).size, 32, "32 different assignments, none answered none");
  assert.ok(ids.every((id) => targets.some((target) => idOf(target) === id)));
});

raceTest("concurrent claims of one validator never exceed its live-lease limit", async (adapter) => {
  await seedQueue(adapter.storage, { miners: 4, events: 10 });
  const other = await adapter.openAnother();
  const options = { leaseMs: 600_000, maxLive: 3 };
  const results: ClaimResult[] = await Promise.all(
    Array.from(
      { length: 16 },
      (_, i) => (i % 2 ? other : adapter.storage).assignments.claim("5Greedy", options),
    ),
  );
  assert.equal(results.filter((result) => result.kind === "claimed").length, 3);
  assert.deepEqual(
    results.filter((result) => result.kind !== "claimed"),
    Array(13).fill({ kind: "limit", live: 3 }),
  );
  assert.equal(await adapter.storage.assignments.countLive("5Greedy"), 3);
});

raceTest("an expired lease raced by many claimers goes to exactly one", async (adapter) => {
  await seedQueue(adapter.storage, { miners: 1, events: 1 });
  const other = await adapter.openAnother();
  const first = await adapter.storage.assignments.claim("5First", { leaseMs: 20, maxLive: 10 }) as Claimed;
  await waitMs(60);
  const results = await Promise.all(
    Array.from(
      { length: 16 },
      (_, v) => (v % 2 ? other : adapter.storage).assignments.claim(`5V${v}`, LONG_LEASE),
    ),
  );
  const won = results.filter((result): result is Claimed => result.kind === "claimed");
  assert.equal(won.length, 1);
  assert.equal(won[0]!.assignment.agentPredictionId, first.assignment.agentPredictionId);
  assert.equal((await adapter.storage.assignments.get(first.assignment.agentPredictionId))?.leaseCount, 2);
});

raceTest(
  "50 concurrent submissions of one prediction store one prediction and one trace",
  async (adapter) => {
    await seedQueue(adapter.storage, { miners: 1, events: 1 });
    const other = await adapter.openAnother();
    const [claimed] = await claimAll(adapter.storage.assignments, "5Holder");
    const id = claimed!.assignment.agentPredictionId;
    const attempts = Array.from({ length: 50 }, (_, i) => ({
      ...submission("5Holder", `attempt ${i}`),
      receivedAtMs: 1_000 + i,
    }));
    const receipts = await Promise.all(
      attempts.map((attempt, i) => (i % 2 ? other : adapter.storage).assignments.submit(id, attempt)),
    );
    const winners = receipts.flatMap((receipt, i) => receipt.stored ? [i] : []);
    assert.equal(winners.length, 1, "one submission stored, the others answered as retries");
    const winner = attempts[winners[0]!]!;
    const stored = await adapter.storage.assignments.getPrediction(id);
    assert.equal(stored?.predictedAtMs, winner.receivedAtMs);
    assert.deepEqual(
      await adapter.storage.assignments.getTrace(id),
      winner.trace,
      "the winner's trace, once",
    );
    const listed = await adapter.storage.assignments.listEventPredictions(claimed!.assignment.eventId, {
      limit: 100,
    });
    assert.deepEqual(listed.map((prediction) => prediction.agentPredictionId), [id]);
  },
);

raceTest(
  "submissions by validators that do not hold the lease store nothing, even racing the holder",
  async (adapter) => {
    await seedQueue(adapter.storage, { miners: 1, events: 1 });
    const other = await adapter.openAnother();
    const [claimed] = await claimAll(adapter.storage.assignments, "5Holder");
    const id = claimed!.assignment.agentPredictionId;
    const outcomes = await Promise.allSettled(
      ["5Holder", ...Array.from({ length: 15 }, (_, i) => `5Intruder${i}`)].map((validator, i) =>
        (i % 2 ? other : adapter.storage).assignments.submit(id, submission(validator, validator))
      ),
    );
    assert.deepEqual(outcomes[0], { status: "fulfilled", value: { agentPredictionId: id, stored: true } });
    for (const outcome of outcomes.slice(1)) {
      assert.ok(outcome.status === "rejected" && outcome.reason instanceof StoreRefusal);
      assert.equal(outcome.reason.code, "lease_not_held");
    }
    assert.equal((await adapter.storage.assignments.getPrediction(id))?.validatorHotkey, "5Holder");
    assert.deepEqual(await adapter.storage.assignments.getTrace(id), submission("5Holder", "5Holder").trace);
  },
);
