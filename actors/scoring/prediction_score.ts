/**
 * One prediction's scored values (docs/scoring.md, "Per prediction"): validity, then for a valid
 * prediction on a resolved event its winning-outcome probability, Brier score, whether it called
 * the winner, and the market's Brier score at the time it was made.
 */
import type { ScorerEvent, ScorerPrediction } from "./scorer_input.ts";
import {
  reasonsWith,
  type ValidityFacts,
  validityFactsOf,
  type ValidityReason,
} from "./prediction_validity.ts";
import { normalise, r6 } from "./scoring_math.ts";

/** A prediction's line of the scorer's output; scored values are null unless valid and resolved. */
export interface PredictionResult {
  isValid: boolean;
  reasons: ValidityReason[];
  pWin: number | null;
  brier: number | null;
  called: boolean | null;
  marketBrier: number | null;
}

/** The values a valid prediction on a resolved event carries into the per-miner formulas. */
export interface ScoredValues {
  winner: string;
  resolvedAtMs: number;
  /** p′: the probabilities divided by their sum, by outcome id. */
  probabilities: Map<string, number>;
  /** m′: the market prices at prediction (else at admission) divided by their sum. */
  market: Map<string, number>;
  pWin: number;
  brier: number;
  called: boolean;
  marketBrier: number;
}

/** A prediction with its event, its validity and (when valid on a resolved event) its scored values. */
export interface ScoredPrediction {
  prediction: ScorerPrediction;
  event: ScorerEvent;
  predictedAtMs: number;
  /** When the event was resolved (status `resolved`), else null. */
  resolvedAtMs: number | null;
  result: PredictionResult;
  scored: ScoredValues | null;
}

/** The event's outcome ids, in its order. */
export function outcomeIdsOf(event: Pick<ScorerEvent, "outcomes">): string[] {
  return event.outcomes.map((outcome) => outcome.outcomeId);
}

/** What scoring reads of an event, worked out once for all its predictions (`eventFactsOf`). */
export interface EventFacts extends ValidityFacts {
  /** When the event was resolved (status `resolved`), else null. */
  resolvedAtMs: number | null;
  /** The winning outcome and the resolution time, when the event is resolved. */
  resolved: { winner: string; resolvedAtMs: number } | null;
  /** m′ from the admission prices (null when they do not sum to more than 0). */
  admissionMarket: Map<string, number> | null;
}

export function eventFactsOf(event: ScorerEvent): EventFacts {
  const { resolutionStatus, winningOutcomeId, resolvedAt } = event.resolution;
  const validity = validityFactsOf(event);
  const resolved = resolutionStatus === "resolved" && winningOutcomeId !== null && resolvedAt !== null
    ? { winner: winningOutcomeId, resolvedAtMs: Date.parse(resolvedAt) }
    : null;
  return {
    ...validity,
    resolvedAtMs: resolutionStatus === "resolved" && resolvedAt !== null ? Date.parse(resolvedAt) : null,
    resolved,
    admissionMarket: normalise(event.outcomePricesAtAdmission, validity.outcomeIds),
  };
}

/** m′: prices at prediction normalised, or the admission prices when those are missing or sum to 0. */
export function marketAtPrediction(
  prediction: ScorerPrediction,
  event: ScorerEvent,
  facts: EventFacts = eventFactsOf(event),
): Map<string, number> {
  const atPrediction = prediction.outcomePricesAtPrediction;
  const market = (atPrediction === null ? null : normalise(atPrediction, facts.outcomeIds)) ??
    facts.admissionMarket;
  // The input schema requires admission prices summing to more than 0.
  if (market === null) throw new RangeError(`Event has no market prices: ${event.id}`);
  return market;
}

function scoredValues(
  prediction: ScorerPrediction,
  event: ScorerEvent,
  facts: EventFacts,
): ScoredValues | null {
  if (facts.resolved === null) return null;
  const { winner, resolvedAtMs } = facts.resolved;
  // A valid prediction has exactly the outcome ids as keys, each a number in [0, 1].
  const probabilities = normalise(
    prediction.outcomeProbabilities as Record<string, number>,
    facts.outcomeIds,
  )!;
  const market = marketAtPrediction(prediction, event, facts);
  const pWin = r6(probabilities.get(winner)!);
  return {
    winner,
    resolvedAtMs,
    probabilities,
    market,
    pWin,
    brier: r6((1 - pWin) ** 2),
    called: prediction.predictedOutcomeId === winner,
    marketBrier: r6((1 - r6(market.get(winner)!)) ** 2),
  };
}

/**
 * Validates and scores one prediction against its event (`facts`: the event's, when scoring many
 * of its predictions).
 */
export function scorePrediction(
  prediction: ScorerPrediction,
  event: ScorerEvent,
  facts: EventFacts = eventFactsOf(event),
): ScoredPrediction {
  const predictedAtMs = Date.parse(prediction.predictedAt);
  const reasons = reasonsWith(prediction, predictedAtMs, facts);
  const scored = reasons.length === 0 ? scoredValues(prediction, event, facts) : null;
  return {
    prediction,
    event,
    predictedAtMs,
    resolvedAtMs: facts.resolvedAtMs,
    result: {
      isValid: reasons.length === 0,
      reasons,
      pWin: scored?.pWin ?? null,
      brier: scored?.brier ?? null,
      called: scored?.called ?? null,
      marketBrier: scored?.marketBrier ?? null,
    },
    scored,
  };
}
