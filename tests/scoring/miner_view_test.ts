import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import {
  buildLeaderboard,
  MINER_CACHE_MS,
  MINER_EVENTS_LISTED,
  MinerView,
} from "../../actors/scoring/mod.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { eventAt, grant, HOUR, put, rowOf, T0 } from "../support/scored_rows.ts";

/** A board with nobody on it whose window is the 30 days to T0. */
const EMPTY_BOARD = buildLeaderboard({
  netuid: 41,
  neurons: [],
  forecasting: new Set(),
  table: { computedAtMs: T0, windowDays: 30, rows: [] },
  fallbackComputedAtMs: T0,
  windowDays: 30,
  forecastingWeightShare: 1,
  prices: null,
  stale: false,
  nowMs: T0,
  figures: {
    window: {
      from: new Date(T0 - 30 * 86_400_000).toISOString(),
      to: new Date(T0).toISOString(),
      scoredEvents: 0,
      countedPredictions: 0,
    },
    intervals: new Map(),
    baselines: [],
  },
});

function viewOf(storage: Storage, clock: ManualClock) {
  return new MinerView({
    leaderboard: { current: () => Promise.resolve(EMPTY_BOARD) },
    scores: storage.scores,
    assignments: storage.assignments,
    agents: storage.agents,
    clock: clock.now,
  });
}

/** Runs `body` over a fresh in-memory store, closed after. */
async function withStorage(body: (storage: Storage) => Promise<void>): Promise<void> {
  const storage = await openKvStorage(":memory:");
  try {
    await body(storage);
  } finally {
    await storage.close();
  }
}

/** `count` events resolved an hour apart up to T0, each with one counted row of "hk-a" (uid 3). */
async function scoredEvents(storage: Storage, count: number) {
  const fence = await grant(storage.jobLeases);
  for (let n = 0; n < count; n++) {
    const event = eventAt(`e${String(n).padStart(3, "0")}`, T0 - n * HOUR);
    await put(storage.scores, fence, event, [rowOf(event, `ap-${n}`, { hotkey: "hk-a", uid: 3 })]);
  }
}

Deno.test("a miner's report lists its newest scored events up to the cap, its figures cover them all", async () => {
  await withStorage(async (storage) => {
    await scoredEvents(storage, MINER_EVENTS_LISTED + 5);
    const report = await viewOf(storage, new ManualClock(T0)).report("hk-a");
    assert.ok(report);
    assert.equal(report.scoredEvents, MINER_EVENTS_LISTED + 5);
    assert.equal(report.events.length, MINER_EVENTS_LISTED);
    assert.deepEqual([report.events[0]!.eventId, report.events.at(-1)!.eventId], ["e000", "e099"]);
    assert.equal(report.intervals.validRows, MINER_EVENTS_LISTED + 5);
    assert.equal(report.reliability[8]!.count, MINER_EVENTS_LISTED + 5);
    assert.equal(report.standing, null);
  });
});

Deno.test("a miner's report is served for a minute, then rebuilt; an unknown hotkey has none", async () => {
  await withStorage(async (storage) => {
    await scoredEvents(storage, 2);
    const clock = new ManualClock(T0);
    const view = viewOf(storage, clock);
    const [first, again] = await Promise.all([view.report("hk-a"), view.report("hk-a")]);
    assert.ok(first);
    assert.equal(again, first);
    await scoredEvents(storage, 3);
    clock.advance(MINER_CACHE_MS - 1);
    assert.equal(await view.report("hk-a"), first);
    clock.advance(1);
    const rebuilt = await view.report("hk-a");
    assert.notEqual(rebuilt, first);
    assert.equal(rebuilt?.scoredEvents, 3);
    assert.equal(await view.report("hk-nobody"), null);
  });
});
