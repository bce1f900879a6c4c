/**
 * Validity of one prediction (SCORING.md "Per prediction"): every failed rule, in the fixed order.
 */
import { keysInOutcomeOrder } from "./scoring_math.ts";

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
  let sum = 0;
  for (const key of keysInOutcomeOrder(probabilities, outcomeIds)) sum += probabilities[key]!;
  return Math.abs(sum - 1) > 0.01;
}

/**
 * `late_prediction`: received after the event's end, or after its resolution when it resolved
 * before its end (`predictedAt` is the server's receipt time).
 */
export function isLate(predictedAt: string, event: ValidityEvent): boolean {
  const at = Date.parse(predictedAt);
  const resolvedAt = event.resolution.resolvedAt;
  const deadline = Math.min(
    Date.parse(event.endDate),
    resolvedAt === null ? Infinity : Date.parse(resolvedAt),
  );
  return at > deadline;
}

/**
 * Every rule the prediction fails, in `VALIDITY_REASONS` order (empty when valid). The sum rule is
 * checked only when every probability is a number in [0, 1]: a sum of out-of-range values says
 * nothing more (this is how `golden/scoring-v1.json` lists them).
 */
export function validityReasons(prediction: ValidityPrediction, event: ValidityEvent): ValidityReason[] {
  const outcomeIds = event.outcomes.map((outcome) => outcome.outcomeId);
  const probabilities = prediction.outcomeProbabilities;
  const inRange = Object.values(probabilities).every(inUnitRange);
  const failed: Record<ValidityReason, boolean> = {
    agent_reported_invalid: prediction.predictionIsInvalid,
    outcome_mismatch: outcomesMismatch(probabilities, outcomeIds),
    probability_out_of_range: !inRange,
    probabilities_do_not_sum_to_one: inRange && sumIsOff(probabilities, outcomeIds),
    unknown_predicted_outcome: !outcomeIds.includes(prediction.predictedOutcomeId),
    confidence_out_of_range: !inUnitRange(prediction.confidence),
    late_prediction: isLate(prediction.predictedAt, event),
  };
  return VALIDITY_REASONS.filter((reason) => failed[reason]);
}
