import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { DigestCache } from "../../actors/predictions/mod.ts";
import type { PredictionDigest } from "../../storage/assignment_record.ts";

function digest(eventId: string, n: number): PredictionDigest {
  return {
    agentPredictionId: `ap-${eventId}-${n}`,
    eventId,
    minerHotkey: `hotkey-${n}`,
    minerUid: n,
    predictedAtMs: 1_000 + n,
    outcomeProbabilities: { yes: 0.5, no: 0.5 },
    isValid: true,
  };
}

/** A store of digests that counts its reads and can be made to fail or to wait. */
function store() {
  const rows = new Map<string, PredictionDigest[]>();
  const reads: string[][] = [];
  let gate: Promise<void> | null = null;
  let failing = false;
  return {
    rows,
    reads,
    hold(): () => void {
      let open!: () => void;
      gate = new Promise((resolve) => open = resolve);
      return () => {
        gate = null;
        open();
      };
    },
    fail(on: boolean) {
      failing = on;
    },
    async read(ids: readonly string[]): Promise<PredictionDigest[]> {
      reads.push([...ids]);
      if (gate) await gate;
      if (failing) throw new Error("storage is down");
      return ids.flatMap((id) => rows.get(id) ?? []);
    },
  };
}

Deno.test("the events a call lacks are read in one storage call; kept ones are not read again", async () => {
  const db = store();
  db.rows.set("a", [digest("a", 1), digest("a", 2)]);
  db.rows.set("b", [digest("b", 1)]);
  const clock = new ManualClock(1_000_000);
  const cache = new DigestCache({
    read: (ids) => db.read(ids),
    ttlMs: 10_000,
    maxEvents: 100,
    clock: clock.now,
  });
  const first = await cache.digestsOf(["a", "b", "c"]);
  assert.deepEqual(db.reads, [["a", "b", "c"]]);
  assert.equal(first.get("a")!.length, 2);
  assert.deepEqual(first.get("c"), [], "an event without predictions is kept as empty");
  db.rows.set("a", [digest("a", 1), digest("a", 2), digest("a", 3)]);
  const second = await cache.digestsOf(["a", "c", "d"]);
  assert.deepEqual(db.reads, [["a", "b", "c"], ["d"]], "only the one not kept");
  assert.equal(second.get("a")!.length, 2, "served from memory within the ttl");
});

Deno.test("after ttlMs an event is read again and shows what storage holds now", async () => {
  const db = store();
  db.rows.set("a", [digest("a", 1)]);
  const clock = new ManualClock(1_000_000);
  const cache = new DigestCache({
    read: (ids) => db.read(ids),
    ttlMs: 10_000,
    maxEvents: 100,
    clock: clock.now,
  });
  await cache.digestsOf(["a"]);
  db.rows.set("a", [digest("a", 1), digest("a", 2)]);
  clock.advance(9_999);
  assert.equal((await cache.digestsOf(["a"])).get("a")!.length, 1);
  clock.advance(2);
  assert.equal((await cache.digestsOf(["a"])).get("a")!.length, 2);
  assert.equal(db.reads.length, 2);
});

Deno.test("ttlMs 0 reads storage on every call", async () => {
  const db = store();
  const cache = new DigestCache({
    read: (ids) => db.read(ids),
    ttlMs: 0,
    maxEvents: 100,
    clock: () => 1_000_000,
  });
  await cache.digestsOf(["a"]);
  await cache.digestsOf(["a"]);
  assert.equal(db.reads.length, 2);
});

Deno.test("concurrent calls for the same event share one read", async () => {
  const db = store();
  db.rows.set("a", [digest("a", 1)]);
  const cache = new DigestCache({
    read: (ids) => db.read(ids),
    ttlMs: 10_000,
    maxEvents: 100,
    clock: () => 1_000_000,
  });
  const open = db.hold();
  const calls = [cache.digestsOf(["a"]), cache.digestsOf(["a", "b"]), cache.digestsOf(["a"])];
  open();
  const answers = await Promise.all(calls);
  assert.deepEqual(db.reads, [["a"], ["b"]], "a is read once; b, which nobody was reading, once");
  for (const answer of answers) assert.equal(answer.get("a")!.length, 1);
});

Deno.test("a failed read fails its callers, is not kept, and the next call reads again", async () => {
  const db = store();
  db.rows.set("a", [digest("a", 1)]);
  const cache = new DigestCache({
    read: (ids) => db.read(ids),
    ttlMs: 10_000,
    maxEvents: 100,
    clock: () => 1_000_000,
  });
  db.fail(true);
  const open = db.hold();
  const calls = [cache.digestsOf(["a"]), cache.digestsOf(["a"])];
  open();
  for (const result of await Promise.allSettled(calls)) assert.equal(result.status, "rejected");
  db.fail(false);
  assert.equal((await cache.digestsOf(["a"])).get("a")!.length, 1);
  assert.equal(db.reads.length, 2);
});

Deno.test("beyond maxEvents the least recently read event is dropped", async () => {
  const db = store();
  const cache = new DigestCache({
    read: (ids) => db.read(ids),
    ttlMs: 10_000,
    maxEvents: 2,
    clock: () => 1_000_000,
  });
  await cache.digestsOf(["a", "b"]);
  await cache.digestsOf(["c"]);
  await cache.digestsOf(["b", "a"]);
  assert.deepEqual(db.reads, [["a", "b"], ["c"], ["a"]]);
});
