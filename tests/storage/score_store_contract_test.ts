import assert from "node:assert/strict";
import type {
  ScoredEventRecord,
  ScoredPredictionRecord,
  ScoreTable,
  ScoreTableRow,
} from "../../storage/score_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { eventAt, grant, HOUR, ids, JOB, put, rowOf, T0, windowRowOf } from "../support/scored_rows.ts";

adapterTest("an empty score store has no events, rows or table", async ({ storage }) => {
  const store = storage.scores;
  assert.equal(await store.getEvent("e1"), null);
  assert.deepEqual(await store.eventPredictions("e1"), []);
  assert.deepEqual(await store.listEvents({ limit: 10 }), []);
  assert.deepEqual(await store.windowRows({ resolvedAfterMs: 0, resolvedUntilMs: T0, events: 10 }), {
    rows: [],
    next: null,
  });
  assert.equal(await store.getTable(), null);
});

adapterTest(
  "a scored event and its rows are stored exactly, nulls and invalid rows included",
  async ({ storage }) => {
    const fence = await grant(storage.jobLeases);
    const event = eventAt("e1", T0, {
      stats: { scored: 2, valid: 1, meanBrier: 0.04, calledRate: 1, bestUid: 7 },
    });
    const valid = rowOf(event, "ap-2", { hotkey: "hk-a", uid: 7 });
    const invalid: ScoredPredictionRecord = {
      ...rowOf(event, "ap-1", { hotkey: "hk-b", uid: 3 }),
      reasons: ["probability_out_of_range", "late_prediction"],
      pWin: null,
      brier: null,
      called: null,
      marketBrier: null,
      pPredicted: null,
      stakeReturn: null,
    };
    const unstaked = { ...rowOf(event, "ap-3", { hotkey: "hk-c", uid: 4 }), stakeReturn: null };
    const superseded = rowOf(event, "ap-0", { hotkey: "hk-a", uid: 7, counted: false });
    await put(storage.scores, fence, event, [valid, invalid, superseded, unstaked]);
    assert.deepEqual(await storage.scores.getEvent("e1"), event);
    assert.deepEqual(await storage.scores.eventPredictions("e1"), [superseded, invalid, valid, unstaked]);
    assert.deepEqual(await storage.scores.eventPredictions("e1", { countedOnly: true }), [
      invalid,
      valid,
      unstaked,
    ]);
  },
);

adapterTest(
  "rescoring an event replaces its rows: the counted flag moves, dropped rows go",
  async ({ storage }) => {
    const fence = await grant(storage.jobLeases);
    const store = storage.scores;
    const event = eventAt("e1", T0);
    const first = rowOf(event, "ap-1", { hotkey: "hk-a", uid: 7 });
    const gone = rowOf(event, "ap-9", { hotkey: "hk-z", uid: 9 });
    await put(store, fence, event, [first, gone]);
    const later = rowOf(event, "ap-2", { hotkey: "hk-a", uid: 7, predictedAtMs: T0 - 1 });
    const rescored = { ...event, scoredAtMs: T0 + 5 * HOUR };
    await put(store, fence, rescored, [{ ...first, counted: false }, later]);
    assert.deepEqual(await store.getEvent("e1"), rescored);
    assert.deepEqual(await store.eventPredictions("e1"), [{ ...first, counted: false }, later]);
    const window = { resolvedAfterMs: 0, resolvedUntilMs: T0, events: 10 };
    assert.deepEqual(await store.windowRows(window), { rows: [windowRowOf(later)], next: null });
    assert.deepEqual(ids(await store.listEvents({ limit: 10, miner: { hotkey: "hk-z" } })), []);
    assert.deepEqual(ids(await store.listEvents({ limit: 10, miner: { hotkey: "hk-a", uid: 7 } })), ["e1"]);
  },
);

adapterTest(
  "a batch of events is written in one call and read back in one call, rescoring included",
  async ({ storage }) => {
    const fence = await grant(storage.jobLeases);
    const store = storage.scores;
    // 3 events × 60 rows: more than one Deno KV commit.
    const events = ["e2", "e1", "e3"].map((id, i) => eventAt(id, T0 - i * HOUR));
    const rowsOf = (event: ScoredEventRecord, count: number) =>
      Array.from(
        { length: count },
        (_, i) =>
          rowOf(event, `${event.eventId}-ap-${String(i).padStart(2, "0")}`, { hotkey: `hk-${i}`, uid: i }),
      );
    const writes = events.map((event) => ({ event, predictions: rowsOf(event, 60) }));
    assert.equal(await store.putEventsFenced(writes, { fence }), true);
    const sortedIds = (list: ScoredEventRecord[]) => ids(list).toSorted();
    assert.deepEqual(sortedIds(await store.getEvents(["e3", "e1", "e2", "e9"])), ["e1", "e2", "e3"]);
    assert.deepEqual(await store.getEvents([]), []);
    const [e2, e1, e3] = events as [ScoredEventRecord, ScoredEventRecord, ScoredEventRecord];
    assert.deepEqual(await store.predictionsOfEvents(["e3", "e1", "e9"]), [
      ...rowsOf(e1, 60),
      ...rowsOf(e3, 60),
    ]);
    // Rescored together: e1 loses rows, e2 changes a row and its record, e3 is unchanged.
    const rescored = { ...e2, scoredAtMs: T0 + HOUR, stats: { ...e2.stats, scored: 7 } };
    const changedRow = { ...rowsOf(e2, 60)[5]!, counted: false };
    const rewrites = [
      { event: e1, predictions: rowsOf(e1, 10) },
      { event: rescored, predictions: rowsOf(e2, 60).map((row, i) => i === 5 ? changedRow : row) },
      { event: e3, predictions: rowsOf(e3, 60) },
    ];
    assert.equal(await store.putEventsFenced(rewrites, { fence }), true);
    assert.deepEqual(await store.eventPredictions("e1"), rowsOf(e1, 10));
    assert.deepEqual((await store.eventPredictions("e2"))[5], changedRow);
    assert.deepEqual(await store.getEvent("e2"), rescored);
    assert.deepEqual(await store.eventPredictions("e3"), rowsOf(e3, 60));
    assert.deepEqual(ids(await store.listEvents({ limit: 10 })), ["e2", "e1", "e3"]);
    assert.equal(await store.putEventsFenced([], { fence }), true);
  },
);

adapterTest(
  "scored events list newest resolution first, then by id, in keyset pages",
  async ({ storage }) => {
    const fence = await grant(storage.jobLeases);
    const store = storage.scores;
    const events = [eventAt("b", T0), eventAt("a", T0), eventAt("c", T0 - HOUR), eventAt("d", T0 + HOUR)];
    for (const event of events) {
      await put(store, fence, event, [
        rowOf(event, `ap-${event.eventId}`, { hotkey: "hk", uid: 1 }),
      ]);
    }
    assert.deepEqual(ids(await store.listEvents({ limit: 10 })), ["d", "a", "b", "c"]);
    const first = await store.listEvents({ limit: 2 });
    assert.deepEqual(ids(first), ["d", "a"]);
    const last = first.at(-1)!;
    const after = { resolvedAtMs: last.resolvedAtMs, eventId: last.eventId };
    assert.deepEqual(ids(await store.listEvents({ limit: 2, after })), ["b", "c"]);
    assert.deepEqual(
      ids(await store.listEvents({ limit: 2, after: { resolvedAtMs: T0 - HOUR, eventId: "c" } })),
      [],
    );
  },
);

adapterTest(
  "a miner's scored events: its counted rows only, by hotkey, or by hotkey and uid",
  async ({ storage }) => {
    const fence = await grant(storage.jobLeases);
    const store = storage.scores;
    const e1 = eventAt("e1", T0);
    const e2 = eventAt("e2", T0 - HOUR);
    const e3 = eventAt("e3", T0 - 2 * HOUR);
    await put(store, fence, e1, [
      rowOf(e1, "ap-1", { hotkey: "hk-a", uid: 7 }),
      rowOf(e1, "ap-2", { hotkey: "hk-a", uid: 12 }),
    ]);
    await put(store, fence, e2, [rowOf(e2, "ap-3", { hotkey: "hk-a", uid: 12 })]);
    await put(store, fence, e3, [
      rowOf(e3, "ap-4", { hotkey: "hk-a", uid: 7, counted: false }),
      rowOf(e3, "ap-5", { hotkey: "hk-b", uid: 7 }),
    ]);
    assert.deepEqual(ids(await store.listEvents({ limit: 10, miner: { hotkey: "hk-a" } })), ["e1", "e2"]);
    assert.deepEqual(ids(await store.listEvents({ limit: 10, miner: { hotkey: "hk-a", uid: 7 } })), ["e1"]);
    assert.deepEqual(ids(await store.listEvents({ limit: 10, miner: { hotkey: "hk-b", uid: 7 } })), ["e3"]);
    assert.deepEqual(ids(await store.listEvents({ limit: 1, miner: { hotkey: "hk-a" } })), ["e1"]);
    const after = { resolvedAtMs: T0, eventId: "e1" };
    assert.deepEqual(ids(await store.listEvents({ limit: 1, after, miner: { hotkey: "hk-a" } })), ["e2"]);
    assert.deepEqual(ids(await store.listEvents({ limit: 10, miner: { hotkey: "nobody" } })), []);
  },
);

function tableOf(count: number, computedAtMs: number): ScoreTable {
  const rows: ScoreTableRow[] = Array.from({ length: count }, (_, uid) => ({
    hotkey: `5Hotkey${String(uid).padStart(4, "0")}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`,
    uid,
    firstSeenAtMs: computedAtMs - uid * HOUR,
    scoring: {
      score: uid === 0 ? 0 : 0.012346,
      raw: -0.25,
      accuracy: 0.6,
      calibration: 0.912345,
      edge: 0.1,
      brier: 0.04,
      weightedBrier: 0.041234,
      roi: -1,
      preds: 12,
      validPreds: 10,
      invalidPreds: 2,
      rho: 0.5,
      effN: 10,
      ageHours: uid,
      gate: uid === 0 ? "invalid_rate" : "pass",
    },
    unroundedScore: uid === 0 ? 0 : 0.012345678901234567,
  }));
  return { computedAtMs, windowDays: 30, rows };
}

adapterTest("the score table round-trips exactly and a new one replaces it whole", async ({ storage }) => {
  const fence = await grant(storage.jobLeases);
  const store = storage.scores;
  const big = tableOf(300, T0);
  assert.equal(await store.putTableFenced(big, { fence }), true);
  assert.deepEqual(await store.getTable(), big);
  const small = { ...tableOf(3, T0 + 300_000), windowDays: 7.5 };
  assert.equal(await store.putTableFenced(small, { fence }), true);
  assert.deepEqual(await store.getTable(), small);
  const empty = tableOf(0, T0 + 600_000);
  assert.equal(await store.putTableFenced(empty, { fence }), true);
  assert.deepEqual(await store.getTable(), empty);
});

adapterTest(
  "writes of a run that lost the scoring job are refused and change nothing",
  async ({ storage }) => {
    const stale = await grant(storage.jobLeases, "a");
    await storage.jobLeases.release(JOB, stale);
    const fresh = await grant(storage.jobLeases, "b");
    const store = storage.scores;
    const event = eventAt("e1", T0);
    const rows = [rowOf(event, "ap-1", { hotkey: "hk", uid: 1 })];
    assert.equal(await store.putEventsFenced([{ event, predictions: rows }], { fence: stale }), false);
    assert.equal(await store.getEvent("e1"), null);
    assert.deepEqual(await store.eventPredictions("e1"), []);
    assert.equal(await store.putTableFenced(tableOf(2, T0), { fence: stale }), false);
    assert.equal(await store.getTable(), null);
    await put(store, fresh, event, rows);
    assert.equal(await store.putTableFenced(tableOf(2, T0), { fence: fresh }), true);
    const newer = { ...event, scoredAtMs: T0 + 9 * HOUR };
    assert.equal(await store.putEventsFenced([{ event: newer, predictions: [] }], { fence: stale }), false);
    assert.deepEqual(await store.getEvent("e1"), event);
    assert.deepEqual(await store.eventPredictions("e1"), rows);
    assert.deepEqual((await store.getTable())?.rows.length, 2);
  },
);
