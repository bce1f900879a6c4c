/**
 * The u16 weights a validator sets on chain from the scores, computed as the bittensor SDK's
 * `convert_weights_and_uids_for_emit` (bittensor/utils/weight_utils.py) does: weights are scaled
 * so the largest is 1, multiplied by 65535 and rounded half to even (Python's `round`), and uids
 * whose weight rounds to 0 are left out.
 */
import type { ScorerOutput } from "./score_v1.ts";

export const U16_MAX = 65535;

/** Weights as the chain takes them: parallel lists, zero weights left out. */
export interface EmitWeights {
  uids: number[];
  weights: number[];
}

/** Python's `round(x)` for a non-negative double: to the nearest integer, halves to even. */
export function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const fraction = x - floor;
  if (fraction > 0.5) return floor + 1;
  if (fraction < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

function checkInputs(uids: readonly number[], weights: readonly number[]): void {
  if (uids.length !== weights.length) {
    throw new RangeError(
      `Passed weights and uids must have the same length: got ${uids.length} and ${weights.length}`,
    );
  }
  if (weights.some((weight) => !Number.isFinite(weight) || weight < 0)) {
    throw new RangeError(`Passed weight is negative or not a number: ${weights.join(", ")}`);
  }
  if (uids.some((uid) => !Number.isInteger(uid) || uid < 0)) {
    throw new RangeError(`Passed uid is negative or not an integer: ${uids.join(", ")}`);
  }
}

/**
 * `convert_weights_and_uids_for_emit(uids, weights)`. All-zero weights (and, unlike the SDK,
 * which fails on empty lists, no weights at all) give empty lists: nothing to set on chain.
 */
export function convertWeightsAndUidsForEmit(
  uids: readonly number[],
  weights: readonly number[],
): EmitWeights {
  checkInputs(uids, weights);
  let sum = 0;
  let max = 0;
  for (const weight of weights) {
    sum += weight;
    max = Math.max(max, weight);
  }
  const emit: EmitWeights = { uids: [], weights: [] };
  if (sum === 0) return emit;
  weights.forEach((weight, index) => {
    const value = roundHalfEven((weight / max) * U16_MAX);
    if (value === 0) return;
    emit.uids.push(uids[index]!);
    emit.weights.push(value);
  });
  return emit;
}

/** The weights of a scorer run: each registered uid's published score, uids ascending. */
export function weightsForEmit(output: ScorerOutput): EmitWeights {
  const miners = Object.values(output.miners).sort((a, b) => a.uid - b.uid);
  return convertWeightsAndUidsForEmit(miners.map((m) => m.uid), miners.map((m) => m.scoring.score));
}
