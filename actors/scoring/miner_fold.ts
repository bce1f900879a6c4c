/**
 * The per-miner formulas (docs/scoring.md, "Per miner") as a fold: a miner's counted rows are added one
 * at a time, in the fixed order of a miner's sums (ascending `resolvedAt`, then event id in
 * code-point order), and only running sums are kept, so scoring a miner holds no rows. Every sum
 * is taken in that order, so the result is bit-identical to summing a sorted list of the rows.
 */
import type { ScoredPrediction, ScoredValues } from "./prediction_score.ts";
import { compareCodePoints, r6 } from "./scoring_math.ts";
import type { ScoringGate, StoredMinerScoring } from "../../storage/score_store.ts";
import { DAY_MS, HOUR_MS } from "../kernel/mod.ts";

/** A row's weight halves every this many days. */
export const HALF_LIFE_DAYS = 7;
/** effN at which rho is one half. */
export const RHO_PRIOR = 10;
/** The roi rule stakes only on a disagreement with the market larger than this. */
export const STAKE_GAP = 0.02;
/** Gate `invalid_rate`: a miner whose invalid rows are more than this share of its rows. */
export const MAX_INVALID_RATE = 0.25;
/** Gate `min_predictions`: a miner with fewer valid rows than this. */
export const MIN_VALID_PREDICTIONS = 5;
/** Calibration's equal-width bins of q over [0, 1]. */
export const CALIBRATION_BINS = 10;

/** What the per-miner formulas read of a valid row. */
export interface ValidRowValues {
  brier: number;
  marketBrier: number;
  called: boolean;
  /** p′ of the predicted outcome: calibration's q. */
  pPredicted: number;
  /** roi: what a stake of 1 returns (`1/m′[k]` when k won, else 0); null when the rule stakes nothing. */
  stakeReturn: number | null;
}

/** What the per-miner formulas read of one counted row: its place in the order, and its values. */
export interface MinerRowValues {
  eventId: string;
  resolvedAtMs: number;
  /** Null for an invalid row. */
  valid: ValidRowValues | null;
}

/** `w = 0.5 ^ (ageDays / 7)` with `ageDays = (computedAt − resolvedAt) / 1 day`. */
export function rowWeight(resolvedAtMs: number, computedAtMs: number): number {
  const ageDays = (computedAtMs - resolvedAtMs) / DAY_MS;
  return 0.5 ** (ageDays / HALF_LIFE_DAYS);
}

/** The gate a miner's row passes, or the first that stops it. */
export function gateOf(preds: number, validPreds: number): ScoringGate {
  if (preds === 0) return "no_predictions";
  if ((preds - validPreds) / preds > MAX_INVALID_RATE) return "invalid_rate";
  if (validPreds < MIN_VALID_PREDICTIONS) return "min_predictions";
  return "pass";
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

/** roi's return of a row's stake, or null when the rule stakes nothing on it. */
export function stakeReturnOf(scored: ScoredValues): number | null {
  const { outcomeId, gap } = pickOutcome(scored);
  const price = scored.market.get(outcomeId)!;
  if (!(gap > STAKE_GAP && price > 0 && price < 1)) return null;
  return outcomeId === scored.winner ? 1 / price : 0;
}

/** The values the per-miner formulas read of a scored row (on a resolved event). */
export function minerRowValuesOf(row: ScoredPrediction): MinerRowValues {
  const scored = row.scored;
  const valid = scored === null ? null : {
    brier: scored.brier,
    marketBrier: scored.marketBrier,
    called: scored.called,
    pPredicted: scored.probabilities.get(row.prediction.predictedOutcomeId)!,
    stakeReturn: stakeReturnOf(scored),
  };
  return { eventId: row.event.id, resolvedAtMs: row.resolvedAtMs ?? 0, valid };
}

/** Negative when `a` comes before `b` in a miner's order: ascending resolvedAt, then event id. */
export function compareMinerPlace(
  a: { resolvedAtMs: number; eventId: string },
  b: { resolvedAtMs: number; eventId: string },
): number {
  return a.resolvedAtMs - b.resolvedAtMs || compareCodePoints(a.eventId, b.eventId);
}

/** Calibration's bin of q (p′ of the predicted outcome): `min(⌊10q⌋, 9)`, 0..9. */
export function calibrationBinOf(q: number): number {
  return Math.min(Math.floor(q * CALIBRATION_BINS), CALIBRATION_BINS - 1);
}

/** Calibration's bins of q, summed in the order rows are added. */
export class CalibrationBins {
  readonly #bins = Array.from({ length: CALIBRATION_BINS }, () => ({ n: 0, q: 0, y: 0 }));
  #count = 0;

  add(q: number, won: boolean): void {
    const bin = this.#bins[calibrationBinOf(q)]!;
    bin.n += 1;
    bin.q += q;
    bin.y += won ? 1 : 0;
    this.#count += 1;
  }

  /** `r6(1 − ECE)`, `ECE = Σ_bins (n_b/N)·|mean q_b − mean y_b|`. */
  value(): number {
    let ece = 0;
    for (const bin of this.#bins) {
      if (bin.n > 0) ece += (bin.n / this.#count) * Math.abs(bin.q / bin.n - bin.y / bin.n);
    }
    return r6(1 - ece);
  }
}

/** A miner's score-table row, and its score before rounding (payout shares are taken of that). */
export interface MinerScore {
  scoring: StoredMinerScoring;
  unroundedScore: number;
}

/**
 * One miner's running sums at `computedAtMs`. `add` takes its counted rows in the window in the
 * miner order and throws a RangeError on a row out of that order (the sums would differ).
 */
export class MinerFold {
  readonly #computedAtMs: number;
  #last: { resolvedAtMs: number; eventId: string } | null = null;
  #preds = 0;
  #valid = 0;
  #called = 0;
  #brierMicro = 0;
  #w = 0;
  #w2 = 0;
  #wBrier = 0;
  #wEdge = 0;
  #staked = 0;
  #received = 0;
  readonly #bins = new CalibrationBins();

  constructor(computedAtMs: number) {
    this.#computedAtMs = computedAtMs;
  }

  add(row: MinerRowValues): void {
    if (this.#last !== null && compareMinerPlace(this.#last, row) >= 0) {
      throw new RangeError(`Miner rows out of order: ${row.eventId} after ${this.#last.eventId}`);
    }
    this.#last = { resolvedAtMs: row.resolvedAtMs, eventId: row.eventId };
    this.#preds += 1;
    const v = row.valid;
    if (v === null) return;
    this.#valid += 1;
    this.#called += v.called ? 1 : 0;
    this.#brierMicro += Math.round(v.brier * 1e6);
    const w = rowWeight(row.resolvedAtMs, this.#computedAtMs);
    this.#w += w;
    this.#w2 += w * w;
    this.#wBrier += w * v.brier;
    this.#wEdge += w * (v.marketBrier - v.brier);
    this.#bins.add(v.pPredicted, v.called);
    if (v.stakeReturn !== null) {
      this.#staked += 1;
      this.#received += v.stakeReturn;
    }
  }

  /** The values that exist only with at least one valid row (all 0 without). */
  #validMetrics() {
    const n = this.#valid;
    if (n === 0) return { brier: 0, weightedBrier: 0, accuracy: 0, calibration: 0, edge: 0, effN: 0, rho: 0 };
    const edge = this.#wEdge / this.#w;
    const effN = (this.#w * this.#w) / this.#w2;
    return {
      brier: Math.round(this.#brierMicro / n) / 1e6 + 0,
      weightedBrier: r6(this.#wBrier / this.#w),
      accuracy: r6(this.#called / n),
      calibration: this.#bins.value(),
      edge,
      effN,
      rho: effN / (effN + RHO_PRIOR),
    };
  }

  /** The row of a registration first seen at `firstSeenAtMs`. */
  result(firstSeenAtMs: number): MinerScore {
    const m = this.#validMetrics();
    const gate = gateOf(this.#preds, this.#valid);
    const unroundedScore = gate === "pass" ? m.rho * Math.max(m.edge, 0) : 0;
    const scoring: StoredMinerScoring = {
      score: r6(unroundedScore),
      raw: r6(m.edge),
      accuracy: m.accuracy,
      calibration: m.calibration,
      edge: r6(m.edge),
      brier: m.brier,
      weightedBrier: m.weightedBrier,
      roi: this.#staked === 0 ? 0 : r6((this.#received - this.#staked) / this.#staked),
      preds: this.#preds,
      validPreds: this.#valid,
      invalidPreds: this.#preds - this.#valid,
      rho: r6(m.rho),
      effN: r6(m.effN),
      // An age is never negative: a registration first seen after `computedAt` is 0 hours old.
      ageHours: r6(Math.max(0, this.#computedAtMs - firstSeenAtMs) / HOUR_MS),
      gate,
    };
    return { scoring, unroundedScore };
  }
}
