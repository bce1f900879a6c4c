import type { ScoringGate } from "../../storage/score_store.ts";

/** The scoring row of a miner with no counted predictions: every value 0 but its age, and its gate. */
export function emptyScoring(ageHours: number, gate: ScoringGate = "no_predictions") {
  return {
    score: 0,
    raw: 0,
    accuracy: 0,
    calibration: 0,
    edge: 0,
    brier: 0,
    weightedBrier: 0,
    roi: 0,
    preds: 0,
    validPreds: 0,
    invalidPreds: 0,
    rho: 0,
    effN: 0,
    ageHours,
    gate,
  };
}
