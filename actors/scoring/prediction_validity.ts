/**
 * Validity of one prediction (docs/scoring.md, "Per prediction"): every failed rule, in the fixed order.
 */
import { sumInOutcomeOrder } from "./scoring_math.ts";

/** The validity rules, in the order `reasons` lists them. */
export const VALIDITY_REASONS = [
  "agent_reported_invalid",
  "outcome_mismatch",
  "probability_out_of_range",
  "probabilities_do_not_sum_to_one",
  "unknown_predicted_outcome",
  "confidence_out_of_range",
  "late_prediction",
] as const;

/** `probabilities_do_not_sum_to_one`: |Σp − 1| more than this. */
export const SUM_TOLERANCE = 0.01;

export type ValidityReason = typeof VALIDITY_REASONS[number];

/** What the rules read of a prediction. */
export interface ValidityPrediction {
  predictionIsInvalid: boolean;
  outcomeProbabilities: Readonly<Record<string, number | null>>;
  predictedOutcomeId: string;
  confidence: number | null;
  predictedAt: string;
}

/** What the rules read of its event. */
export interface ValidityEvent {
  outcomes: readonly { outcomeId: string }[];
  endDate: string;
  resolution: { resolvedAt: string | null };
}

function inUnitRange(value: number | null | undefined): boolean {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1;
}

function outcomesMismatch(
  probabilities: Readonly<Record<string, unknown>>,
  outcomeIds: readonly string[],
): boolean {
  const keys = Object.keys(probabilities);
  return keys.length !== outcomeIds.length || !keys.every((key) => outcomeIds.includes(key));
}

/** |Σp − 1| > 0.01, summed in the event's outcome order, then other keys in code-point order. */
function sumIsOff(
  probabilities: Readonly<Record<string, number | null>>,
  outcomeIds: readonly string[],
): boolean {
  // Only called when every value is a number.
  return Math.abs(sumInOutcomeOrder(probabilities as Readonly<Record<string, number>>, outcomeIds) - 1) >
    SUM_TOLERANCE;
}

/** What the rules read of an event, worked out once for all its predictions. */
export interface ValidityFacts {
  outcomeIds: string[];
  /** `min(endDate, resolvedAt)`: a prediction received after it is late. */
  deadlineMs: number;
}

export function validityFactsOf(event: ValidityEvent): ValidityFacts {
  const resolvedAt = event.resolution.resolvedAt;
  return {
    outcomeIds: event.outcomes.map((outcome) => outcome.outcomeId),
    deadlineMs: Math.min(Date.parse(event.endDate), resolvedAt === null ? Infinity : Date.parse(resolvedAt)),
  };
}

/**
 * `late_prediction`: received after the event's end, or after its resolution when it resolved
 * before its end (`predictedAt` is the server's receipt time).
 */
export function isLate(predictedAt: string, event: ValidityEvent): boolean {
  return Date.parse(predictedAt) > validityFactsOf(event).deadlineMs;
}

/**
 * Every rule the prediction fails, in `VALIDITY_REASONS` order (empty when valid). The sum rule is
 * checked only when every probability is a number in [0, 1]: a sum of out-of-range values says
 * nothing more (this is how `tests/scoring/golden/scoring-v1.json` lists them).
 */
export function validityReasons(prediction: ValidityPrediction, event: ValidityEvent): ValidityReason[] {
  return reasonsWith(prediction, Date.parse(prediction.predictedAt), validityFactsOf(event));
}

/** `validityReasons` with the event's facts and the prediction's time already worked out. */
export function reasonsWith(
  prediction: ValidityPrediction,
  predictedAtMs: number,
  facts: ValidityFacts,
): ValidityReason[] {
  const { outcomeIds } = facts;
  const probabilities = prediction.outcomeProbabilities;
  const inRange = Object.values(probabilities).every(inUnitRange);
  const reasons: ValidityReason[] = [];
  if (prediction.predictionIsInvalid) reasons.push("agent_reported_invalid");
  if (outcomesMismatch(probabilities, outcomeIds)) reasons.push("outcome_mismatch");
  if (!inRange) reasons.push("probability_out_of_range");
  if (inRange && sumIsOff(probabilities, outcomeIds)) reasons.push("probabilities_do_not_sum_to_one");
  if (!outcomeIds.includes(prediction.predictedOutcomeId)) reasons.push("unknown_predicted_outcome");
  if (!inUnitRange(prediction.confidence)) reasons.push("confidence_out_of_range");
  if (predictedAtMs > facts.deadlineMs) reasons.push("late_prediction");
  return reasons;
}
