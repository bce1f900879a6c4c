import assert from "node:assert/strict";
import { DigestReads } from "../../actors/predictions/mod.ts";
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
    lateOnly: false,
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

Deno.test("the events one call needs are read in one storage call, each with its predictions", async () => {
  const db = store();
  db.rows.set("a", [digest("a", 1), digest("a", 2)]);
  db.rows.set("b", [digest("b", 1)]);
  const reads = new DigestReads((ids) => db.read(ids));
  const found = await reads.digestsOf(["a", "b", "c"]);
  assert.deepEqual(db.reads, [["a", "b", "c"]]);
  assert.equal(found.get("a")!.length, 2);
  assert.equal(found.get("b")!.length, 1);
  assert.deepEqual(found.get("c"), [], "an event without predictions has none");
  await reads.digestsOf(["a"]);
  assert.equal(db.reads.length, 2, "nothing is kept once a read is over");
});

Deno.test("concurrent calls for the same event share one read", async () => {
  const db = store();
  db.rows.set("a", [digest("a", 1)]);
  const reads = new DigestReads((ids) => db.read(ids));
  const open = db.hold();
  const calls = [reads.digestsOf(["a"]), reads.digestsOf(["a", "b"]), reads.digestsOf(["a"])];
  open();
  const answers = await Promise.all(calls);
  assert.deepEqual(db.reads, [["a"], ["b"]], "a is read once; b, which nobody was reading, once");
  for (const answer of answers) assert.equal(answer.get("a")!.length, 1);
});

Deno.test("a failed read fails the calls waiting on it and the next call reads again", async () => {
  const db = store();
  db.rows.set("a", [digest("a", 1)]);
  const reads = new DigestReads((ids) => db.read(ids));
  db.fail(true);
  const open = db.hold();
  const calls = [reads.digestsOf(["a"]), reads.digestsOf(["a"])];
  open();
  for (const result of await Promise.allSettled(calls)) assert.equal(result.status, "rejected");
  db.fail(false);
  assert.equal((await reads.digestsOf(["a"])).get("a")!.length, 1);
  assert.equal(db.reads.length, 2);
});
