/**
 * When each miner of the populated world predicts each market: a seeded step a few steps after
 * the market's admission (after the miner joined, before the market ended or settled), and for
 * some miners a second round later on (the latest counts).
 */
import { TICK_MS, type WorldMarket } from "./world_markets.ts";
import type { WorldMiner } from "./world_miners.ts";
import { seeded } from "./world_random.ts";

export interface PlannedPrediction {
  atMs: number;
  miner: WorldMiner;
  market: WorldMarket;
  round: number;
  /** The agent flags its own prediction invalid. */
  invalid: boolean;
}

/** The last step a prediction on `market` is on time for. */
function cutoffOf(market: WorldMarket): number {
  const settles = "atMs" in market.fate ? market.fate.atMs : Infinity;
  return Math.min(settles, market.endMs) - TICK_MS;
}

/** The predictions of one miner on one market (none, one, or two rounds). */
function plannedFor(miner: WorldMiner, market: WorldMarket, index: number): PlannedPrediction[] {
  if (miner.habit === "idle") return [];
  // The newcomer picks every third market, so it has fewer scored predictions than the gate asks.
  if (miner.habit === "newcomer" && index % 3 !== 0) return [];
  const random = seeded(`plan:${miner.uid}:${market.admitted.id}`);
  const first = Math.max(market.admittedAtMs, miner.joinedAtMs) + (1 + Math.floor(random() * 6)) * TICK_MS;
  const cutoff = cutoffOf(market);
  const firstAt = Math.ceil(first / TICK_MS) * TICK_MS;
  if (firstAt > cutoff) return [];
  const invalid = () => miner.habit === "flaky" && random() < 0.4;
  const planned = [{ atMs: firstAt, miner, market, round: 0, invalid: invalid() }];
  const secondAt = firstAt + (4 + Math.floor(random() * 5)) * TICK_MS;
  const updates = miner.habit === "informed" || miner.habit === "follower";
  if (updates && random() < 0.4 && secondAt <= cutoff) {
    planned.push({ atMs: secondAt, miner, market, round: 1, invalid: false });
  }
  return planned;
}

/** Every prediction of the world, by time. */
export function predictionPlan(
  markets: readonly WorldMarket[],
  miners: readonly WorldMiner[],
): PlannedPrediction[] {
  return markets
    .flatMap((market, index) => miners.flatMap((miner) => plannedFor(miner, market, index)))
    .sort((a, b) => a.atMs - b.atMs);
}
