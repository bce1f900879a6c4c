/**
 * One miner's scoring-table row (SCORING.md "Per miner"): its counted rows on events resolved in
 * the window, weighted by age, compared with the market, gated, and turned into a score.
 */
import type { ScoredPrediction, ScoredValues } from "./prediction_score.ts";
import { compareCodePoints, exactMeanR6, r6 } from "./scoring_math.ts";
import type { ScoringGate, StoredMinerScoring } from "../../storage/score_store.ts";

export type Gate = ScoringGate;

/** A miner's row of the score table (the leaderboard's `scoring`), key order as published. */
export type MinerScoring = StoredMinerScoring;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** A row's weight halves every this many days. */
const HALF_LIFE_DAYS = 7;
/** effN at which rho is one half. */
const RHO_PRIOR = 10;

/** Rows in the fixed order of a miner's sums: ascending resolvedAt, then event id (code points). */
export function compareMinerOrder(a: ScoredPrediction, b: ScoredPrediction): number {
  return (a.resolvedAtMs ?? 0) - (b.resolvedAtMs ?? 0) || compareCodePoints(a.event.id, b.event.id);
}

/** `w = 0.5 ^ (ageDays / 7)` with `ageDays = (computedAt − resolvedAt) / 1 day`. */
export function rowWeight(resolvedAtMs: number, computedAtMs: number): number {
  const ageDays = (computedAtMs - resolvedAtMs) / DAY_MS;
  return 0.5 ** (ageDays / HALF_LIFE_DAYS);
}

/** `1 − ECE` over 10 bins of q = p′ of the predicted outcome, y = whether it won. */
export function calibrationOf(valid: readonly ScoredPrediction[]): number {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, q: 0, y: 0 }));
  for (const row of valid) {
    const q = row.scored!.probabilities.get(row.prediction.predictedOutcomeId)!;
    const bin = bins[Math.min(Math.floor(q * 10), 9)]!;
    bin.n += 1;
    bin.q += q;
    bin.y += row.scored!.called ? 1 : 0;
  }
  let ece = 0;
  for (const bin of bins) {
    if (bin.n > 0) ece += (bin.n / valid.length) * Math.abs(bin.q / bin.n - bin.y / bin.n);
  }
  return r6(1 - ece);
}

/** The outcome with the largest p′ − m′ (ties: first in the event's outcome order). */
function pickOutcome(scored: ScoredValues): { outcomeId: string; gap: number } {
  let pick = { outcomeId: "", gap: -Infinity };
  for (const [outcomeId, p] of scored.probabilities) {
    const gap = p - scored.market.get(outcomeId)!;
    if (gap > pick.gap) pick = { outcomeId, gap };
  }
  return pick;
}

/** Return on staking 1 at the market price on each clear (> 0.02) disagreement with the market. */
export function roiOf(valid: readonly ScoredPrediction[]): number {
  let staked = 0;
  let received = 0;
  for (const row of valid) {
    const scored = row.scored!;
    const { outcomeId, gap } = pickOutcome(scored);
    const price = scored.market.get(outcomeId)!;
    if (!(gap > 0.02 && price > 0 && price < 1)) continue;
    staked += 1;
    if (outcomeId === scored.winner) received += 1 / price;
  }
  return staked === 0 ? 0 : r6((received - staked) / staked);
}

/** The gate a miner's row passes, or the first that stops it. */
export function gateOf(preds: number, validPreds: number): Gate {
  if (preds === 0) return "no_predictions";
  if ((preds - validPreds) / preds > 0.25) return "invalid_rate";
  if (validPreds < 5) return "min_predictions";
  return "pass";
}

interface WeightedSums {
  w: number;
  w2: number;
  wBrier: number;
  wEdge: number;
}

function weightedSums(valid: readonly ScoredPrediction[], computedAtMs: number): WeightedSums {
  const sums = { w: 0, w2: 0, wBrier: 0, wEdge: 0 };
  for (const row of valid) {
    const { resolvedAtMs, brier, marketBrier } = row.scored!;
    const w = rowWeight(resolvedAtMs, computedAtMs);
    sums.w += w;
    sums.w2 += w * w;
    sums.wBrier += w * brier;
    sums.wEdge += w * (marketBrier - brier);
  }
  return sums;
}

/** The values that exist only with at least one valid row (all 0 without). */
function validRowMetrics(valid: readonly ScoredPrediction[], computedAtMs: number) {
  if (valid.length === 0) {
    return { brier: 0, weightedBrier: 0, accuracy: 0, calibration: 0, edge: 0, effN: 0, rho: 0 };
  }
  const sums = weightedSums(valid, computedAtMs);
  const edge = sums.wEdge / sums.w;
  const effN = (sums.w * sums.w) / sums.w2;
  return {
    brier: exactMeanR6(valid.map((row) => row.scored!.brier)),
    weightedBrier: r6(sums.wBrier / sums.w),
    accuracy: r6(valid.filter((row) => row.scored!.called).length / valid.length),
    calibration: calibrationOf(valid),
    edge,
    effN,
    rho: effN / (effN + RHO_PRIOR),
  };
}

/** A miner's score-table row, and its score before rounding (payout shares are taken of that). */
export interface MinerScore {
  scoring: MinerScoring;
  unroundedScore: number;
}

/**
 * The score-table row of one miner from its counted rows on resolved events in the window (any
 * order: they are sorted here), at `computedAtMs`, for a registration first seen at `firstSeenAtMs`.
 */
export function scoreMiner(
  rows: readonly ScoredPrediction[],
  options: { computedAtMs: number; firstSeenAtMs: number },
): MinerScore {
  const ordered = [...rows].sort(compareMinerOrder);
  const valid = ordered.filter((row) => row.scored !== null);
  const m = validRowMetrics(valid, options.computedAtMs);
  const gate = gateOf(ordered.length, valid.length);
  const unroundedScore = gate === "pass" ? m.rho * Math.max(m.edge, 0) : 0;
  const scoring: MinerScoring = {
    score: r6(unroundedScore),
    raw: r6(m.edge),
    accuracy: m.accuracy,
    calibration: m.calibration,
    edge: r6(m.edge),
    brier: m.brier,
    weightedBrier: m.weightedBrier,
    roi: roiOf(valid),
    preds: ordered.length,
    validPreds: valid.length,
    invalidPreds: ordered.length - valid.length,
    rho: r6(m.rho),
    effN: r6(m.effN),
    ageHours: r6((options.computedAtMs - options.firstSeenAtMs) / HOUR_MS),
    gate,
  };
  return { scoring, unroundedScore };
}
