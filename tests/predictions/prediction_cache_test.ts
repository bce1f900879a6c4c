import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { type CachedPrediction, customerPrediction, PredictionCache } from "../../actors/predictions/mod.ts";
import type { ScoredMiners } from "../../actors/predictions/mod.ts";
import { eventRecord } from "../support/events.ts";

const START = Date.UTC(2026, 10, 24);

function entry(id: string, scored: ScoredMiners): CachedPrediction {
  const event = eventRecord(id, START);
  return { event, scored, prediction: customerPrediction(event, { forecast: null, miners: [] }, new Map()) };
}

function scores(): ScoredMiners {
  return { miners: [{ hotkey: "5Miner", uid: 1, score: 0.1 }], computedAt: new Date(START).toISOString() };
}

Deno.test("an entry answers only for the same event object and the same scores object", () => {
  const cache = new PredictionCache({ ttlMs: 60_000, maxEvents: 10, clock: () => START });
  const scored = scores();
  const kept = entry("polymarket-1", scored);
  cache.set(kept);
  assert.equal(cache.get(kept.event, scored), kept);
  assert.equal(cache.get({ ...kept.event }, scored), undefined, "the event changed (a new snapshot object)");
  assert.equal(cache.get(kept.event, scores()), undefined, "the scores changed");
});

Deno.test("invalidate forgets the named events; the others stay", () => {
  const cache = new PredictionCache({ ttlMs: 60_000, maxEvents: 10, clock: () => START });
  const scored = scores();
  const a = entry("polymarket-1", scored);
  const b = entry("polymarket-2", scored);
  cache.set(a);
  cache.set(b);
  cache.invalidate(["polymarket-1", "polymarket-404"]);
  assert.equal(cache.get(a.event, scored), undefined);
  assert.equal(cache.get(b.event, scored), b);
});

Deno.test("an entry is kept for at most ttlMs, and ttlMs 0 keeps nothing", () => {
  const clock = new ManualClock(START);
  const cache = new PredictionCache({ ttlMs: 60_000, maxEvents: 10, clock: clock.now });
  const scored = scores();
  const kept = entry("polymarket-1", scored);
  cache.set(kept);
  clock.advance(60_000);
  assert.equal(cache.get(kept.event, scored), kept);
  clock.advance(1);
  assert.equal(cache.get(kept.event, scored), undefined);
  const none = new PredictionCache({ ttlMs: 0, maxEvents: 10, clock: clock.now });
  none.set(kept);
  assert.equal(none.get(kept.event, scored), undefined);
});

Deno.test("beyond maxEvents the least recently used event is dropped", () => {
  const cache = new PredictionCache({ ttlMs: 60_000, maxEvents: 2, clock: () => START });
  const scored = scores();
  const [a, b, c] = ["polymarket-1", "polymarket-2", "polymarket-3"].map((id) => entry(id, scored));
  cache.set(a!);
  cache.set(b!);
  cache.get(a!.event, scored);
  cache.set(c!);
  assert.equal(cache.get(b!.event, scored), undefined);
  assert.equal(cache.get(a!.event, scored), a);
});
