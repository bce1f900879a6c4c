/**
 * The customer consensus (docs/predictions.md, "Consensus", `method` = "score_weighted_mean_v1"):
 * the mean of the currently registered miners' latest valid predictions on an event, each
 * normalised and weighted by the miner's current score. Pure: no I/O, no clock.
 */
import { compareLatest, normalise, r6 } from "../scoring/mod.ts";

export const CONSENSUS_METHOD = "score_weighted_mean_v1";
/** How many miner rows a consensus shows. */
export const CONSENSUS_MINER_ROWS = 10;

/** A stored prediction on the event. */
export interface ConsensusPrediction {
  agentPredictionId: string;
  minerHotkey: string;
  minerUid: number | null;
  predictedAt: string;
  outcomeProbabilities: Readonly<Record<string, number | null>>;
  /** The verdict stored at submission (`predictionValidation.isValid`). */
  isValid: boolean;
}

/** A current (hotkey, uid) registration with its score from the score table (0 when it has none). */
export interface ConsensusMiner {
  hotkey: string;
  uid: number;
  score: number;
}

export interface ConsensusInput {
  /** The event's outcome ids, in its order. */
  outcomeIds: readonly string[];
  /** The event's stored predictions (any order, invalid and superseded ones included). */
  predictions: readonly ConsensusPrediction[];
  miners: readonly ConsensusMiner[];
}

export interface ConsensusOptions {
  /** Show each miner row's probabilities (only once the event is resolved). Default false. */
  showMinerProbabilities?: boolean;
  /** When the score table was computed: `updatedAt` is not earlier than this. */
  scoresComputedAt?: string;
}

export interface ConsensusForecast {
  outcomeProbabilities: Record<string, number>;
  /** Contributions with a weight above 0. */
  contributors: number;
  method: typeof CONSENSUS_METHOD;
  /** The latest of the contributors' predictedAt and the score table's computedAt. */
  updatedAt: string;
}

export interface ConsensusMinerRow {
  uid: number;
  hotkey: string;
  /** The prediction the row shows (the miner's latest valid one). */
  agentPredictionId: string;
  /** The weight the contribution had (its score, or 1 when every score was 0). */
  weight: number;
  predictedAt: string;
  /** p′ (r6), present only with `showMinerProbabilities`. */
  outcomeProbabilities?: Record<string, number>;
}

export interface Consensus {
  /** Null when no registered miner has a valid prediction on the event. */
  forecast: ConsensusForecast | null;
  /** The top contributions by weight (ties: lower uid first), at most 10. */
  miners: ConsensusMinerRow[];
}

interface Contribution {
  miner: ConsensusMiner;
  prediction: ConsensusPrediction;
  probabilities: Map<string, number>;
  weight: number;
}

function orderOf(prediction: ConsensusPrediction) {
  return {
    predictedAtMs: Date.parse(prediction.predictedAt),
    agentPredictionId: prediction.agentPredictionId,
  };
}

/** Each registered miner's latest valid prediction, normalised, weighted by its score; by ascending uid. */
function contributionsOf(input: ConsensusInput): Contribution[] {
  const latest = new Map<string, ConsensusPrediction>();
  for (const prediction of input.predictions) {
    if (!prediction.isValid || prediction.minerUid === null) continue;
    const key = JSON.stringify([prediction.minerHotkey, prediction.minerUid]);
    const current = latest.get(key);
    if (current === undefined || compareLatest(orderOf(prediction), orderOf(current)) > 0) {
      latest.set(key, prediction);
    }
  }
  const contributions: Contribution[] = [];
  for (const miner of [...input.miners].sort((a, b) => a.uid - b.uid)) {
    if (!(Number.isFinite(miner.score) && miner.score >= 0)) {
      throw new RangeError(`Invalid score for uid ${miner.uid}: ${miner.score}`);
    }
    const prediction = latest.get(JSON.stringify([miner.hotkey, miner.uid]));
    if (prediction === undefined) continue;
    // A valid prediction has only numbers in [0, 1] summing to about 1.
    const probabilities = normalise(
      prediction.outcomeProbabilities as Record<string, number>,
      input.outcomeIds,
    );
    if (probabilities !== null) contributions.push({ miner, prediction, probabilities, weight: miner.score });
  }
  if (contributions.every((c) => c.weight === 0)) { for (const c of contributions) c.weight = 1; }
  return contributions;
}

function rounded(probabilities: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...probabilities].map(([id, p]) => [id, r6(p)]));
}

function forecastOf(
  contributions: readonly Contribution[],
  input: ConsensusInput,
  options: ConsensusOptions,
): ConsensusForecast {
  let total = 0;
  const sums = new Map(input.outcomeIds.map((id) => [id, 0]));
  let updatedAtMs = options.scoresComputedAt === undefined ? -Infinity : Date.parse(options.scoresComputedAt);
  for (const { prediction, probabilities, weight } of contributions) {
    total += weight;
    for (const id of input.outcomeIds) sums.set(id, sums.get(id)! + weight * probabilities.get(id)!);
    if (weight > 0) updatedAtMs = Math.max(updatedAtMs, Date.parse(prediction.predictedAt));
  }
  return {
    outcomeProbabilities: Object.fromEntries(input.outcomeIds.map((id) => [id, r6(sums.get(id)! / total)])),
    contributors: contributions.filter((c) => c.weight > 0).length,
    method: CONSENSUS_METHOD,
    updatedAt: new Date(updatedAtMs).toISOString(),
  };
}

function minerRows(contributions: readonly Contribution[], showProbabilities: boolean): ConsensusMinerRow[] {
  const top = [...contributions]
    .sort((a, b) => b.weight - a.weight || a.miner.uid - b.miner.uid)
    .slice(0, CONSENSUS_MINER_ROWS);
  return top.map(({ miner, prediction, probabilities, weight }) => ({
    uid: miner.uid,
    hotkey: miner.hotkey,
    agentPredictionId: prediction.agentPredictionId,
    weight,
    predictedAt: prediction.predictedAt,
    ...(showProbabilities ? { outcomeProbabilities: rounded(probabilities) } : {}),
  }));
}

/**
 * The consensus forecast of one event: `outcomeProbabilities[k] = r6(Σ w·p′[k] / Σ w)` over the
 * contributions, summed by ascending uid, keys in the event's outcome order.
 */
export function scoreWeightedConsensus(input: ConsensusInput, options: ConsensusOptions = {}): Consensus {
  const contributions = contributionsOf(input);
  if (contributions.length === 0) return { forecast: null, miners: [] };
  return {
    forecast: forecastOf(contributions, input, options),
    miners: minerRows(contributions, options.showMinerProbabilities === true),
  };
}
