/**
 * One miner's scoring-table row (docs/scoring.md, "Per miner") from a list of its counted rows on events
 * resolved in the window: the rows sorted into the miner order, then folded (`MinerFold`).
 */
import type { ScoredPrediction } from "./prediction_score.ts";
import {
  CalibrationBins,
  compareMinerPlace,
  MinerFold,
  minerRowValuesOf,
  type MinerScore,
} from "./miner_fold.ts";
import type { ScoringGate, StoredMinerScoring } from "../../storage/score_store.ts";

export type Gate = ScoringGate;

/** A miner's row of the score table (the leaderboard's `scoring`), key order as published. */
export type MinerScoring = StoredMinerScoring;

/** Rows in the fixed order of a miner's sums: ascending resolvedAt, then event id (code points). */
export function compareMinerOrder(a: ScoredPrediction, b: ScoredPrediction): number {
  return compareMinerPlace(
    { resolvedAtMs: a.resolvedAtMs ?? 0, eventId: a.event.id },
    { resolvedAtMs: b.resolvedAtMs ?? 0, eventId: b.event.id },
  );
}

/** `1 − ECE` over 10 bins of q = p′ of the predicted outcome, y = whether it won (valid rows, in order). */
export function calibrationOf(valid: readonly ScoredPrediction[]): number {
  const bins = new CalibrationBins();
  for (const row of valid) {
    bins.add(row.scored!.probabilities.get(row.prediction.predictedOutcomeId)!, row.scored!.called);
  }
  return bins.value();
}

/**
 * The score-table row of one miner from its counted rows on resolved events in the window (any
 * order: they are sorted here), at `computedAtMs`, for a registration first seen at `firstSeenAtMs`.
 */
export function scoreMiner(
  rows: readonly ScoredPrediction[],
  options: { computedAtMs: number; firstSeenAtMs: number },
): MinerScore {
  const fold = new MinerFold(options.computedAtMs);
  for (const row of [...rows].sort(compareMinerOrder)) fold.add(minerRowValuesOf(row));
  return fold.result(options.firstSeenAtMs);
}
