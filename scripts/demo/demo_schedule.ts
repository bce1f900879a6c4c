/**
 * The demo's seeded choices, pure (no clock, no I/O): which pool markets it resolves and who wins
 * each. Every draw is `seededUniform(seed, …labels)`, a hash of the seed and what is drawn, so a
 * draw never depends on the order of the others or on timing: the same seed gives the same
 * markets and winners on every run (docs/getting_started.md, "Demo").
 */
import { sha256 } from "@noble/hashes/sha2.js";

/** How far the hidden probability stays from uniform: `q = 1/n + 0.6 × (price − 1/n)`. */
const HIDDEN_SHRINK = 0.6;

/** A pool market as the validators reach it (soonest-ending first). */
export interface PoolMarket {
  eventId: string;
  /** The event's outcome ids, in its order. */
  outcomeIds: readonly string[];
  /** outcomeId → market price. */
  prices: Readonly<Record<string, number>>;
}

/** How many markets the demo resolves, among how many of the first in the pool. */
export interface SchedulePlan {
  /** Markets resolved. */
  count: number;
  /** Picked among this many of the pool's first markets (at least `count`). */
  among: number;
}

/** The demo's default plan: 12 resolved markets among the pool's first 16. */
export const DEFAULT_PLAN: SchedulePlan = { count: 12, among: 16 };

/** A uniform number in [0, 1) from the seed and the labels (the first 48 bits of their SHA-256). */
export function seededUniform(seed: number, ...labels: string[]): number {
  const digest = sha256(new TextEncoder().encode([String(seed), ...labels].join("\u0000")));
  let value = 0;
  for (const byte of digest.subarray(0, 6)) value = value * 256 + byte;
  return value / 2 ** 48;
}

/**
 * The markets the demo resolves, in the order the validators reach them: `plan.count` of the
 * first `plan.among` markets of `pool`, the ones with the lowest draws.
 */
export function pickMarkets<T extends PoolMarket>(seed: number, pool: readonly T[], plan: SchedulePlan): T[] {
  if (plan.count > plan.among) throw new RangeError(`Cannot pick ${plan.count} markets among ${plan.among}`);
  const first = pool.slice(0, plan.among);
  const draws = new Map(first.map((market) => [market.eventId, seededUniform(seed, "pick", market.eventId)]));
  const picked = new Set(
    first.toSorted((a, b) => draws.get(a.eventId)! - draws.get(b.eventId)!).slice(0, plan.count),
  );
  return first.filter((market) => picked.has(market));
}

/** The prices normalised to sum to one (uniform when they sum to zero). */
function normalised(
  outcomeIds: readonly string[],
  prices: Readonly<Record<string, number>>,
): Record<string, number> {
  const raw = outcomeIds.map((id) => Math.max(prices[id] ?? 0, 0));
  const total = raw.reduce((sum, price) => sum + price, 0);
  return Object.fromEntries(
    outcomeIds.map((id, i) => [id, total > 0 ? raw[i]! / total : 1 / outcomeIds.length]),
  );
}

/**
 * The hidden probability of each outcome: the market price (normalised) moved toward uniform,
 * `1/n + 0.6 × (price − 1/n)` — for two outcomes `0.5 + 0.6 × (price − 0.5)`. It differs from the
 * market on purpose: the score rewards edge over the market.
 */
export function hiddenProbabilities(
  outcomeIds: readonly string[],
  prices: Readonly<Record<string, number>>,
): Record<string, number> {
  const market = normalised(outcomeIds, prices);
  const uniform = 1 / outcomeIds.length;
  return Object.fromEntries(
    outcomeIds.map((id) => [id, uniform + HIDDEN_SHRINK * (market[id]! - uniform)]),
  );
}

/** The winning outcome of `market`: drawn from its hidden probabilities with the seed. */
export function drawWinner(seed: number, market: PoolMarket): string {
  const hidden = hiddenProbabilities(market.outcomeIds, market.prices);
  const draw = seededUniform(seed, "winner", market.eventId);
  let reached = 0;
  for (const id of market.outcomeIds) {
    reached += hidden[id]!;
    if (draw < reached) return id;
  }
  return market.outcomeIds.at(-1)!;
}
