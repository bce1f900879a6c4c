/**
 * A miner's scored events as its page lists them: each counted row with its event's question and
 * winner, the scorer's stored values, and the market's probability of the winner at prediction
 * (the m′ its market Brier was scored on). Pure.
 */
import type { ScoringPrediction } from "../../storage/assignment_record.ts";
import type { ScoredEventRecord, ScoredPredictionRecord } from "../../storage/score_store.ts";
import { marketAtPrediction } from "./prediction_score.ts";
import { r6 } from "./scoring_math.ts";
import { scorerEventOf, scorerPredictionOf } from "./stored_scoring.ts";

export interface MinerEventItem {
  eventId: string;
  question: string;
  resolvedAtMs: number;
  /** The uid the prediction was made under. */
  uid: number;
  predictedAtMs: number;
  /** The outcome that won. */
  outcome: { outcomeId: string; name: string };
  invalid: boolean;
  /** The stored values of the row (null when invalid). */
  pWin: number | null;
  pPredicted: number | null;
  called: boolean | null;
  brier: number | null;
  marketBrier: number | null;
  /** r6(m′ of the winner): the market prices at prediction (else at admission) ÷ their sum. */
  marketPWin: number | null;
}

/** r6(m′[winner]) of a prediction on a scored event, by the scorer's own `marketAtPrediction`. */
export function marketPWinOf(prediction: ScoringPrediction, event: ScoredEventRecord): number | null {
  const { winningOutcomeId, resolvedAtMs } = event;
  const market = marketAtPrediction(
    scorerPredictionOf(prediction),
    scorerEventOf(event, { winningOutcomeId, resolvedAtMs }),
  );
  const price = market.get(winningOutcomeId);
  return price === undefined ? null : r6(price);
}

/**
 * The listed rows, in their order, with their events' records and (where found) the stored
 * predictions they score. A row whose event record is not readable (yet) is left out.
 */
export function minerEventItems(
  rows: readonly ScoredPredictionRecord[],
  sources: { events: readonly ScoredEventRecord[]; predictions: readonly ScoringPrediction[] },
): MinerEventItem[] {
  const events = new Map(sources.events.map((event) => [event.eventId, event]));
  const predictions = new Map(sources.predictions.map((p) => [p.agentPredictionId, p]));
  return rows.flatMap((row) => {
    const event = events.get(row.eventId);
    if (event === undefined) return [];
    const prediction = predictions.get(row.agentPredictionId);
    const winner = event.outcomes.find((outcome) => outcome.outcomeId === event.winningOutcomeId);
    return [{
      eventId: row.eventId,
      question: event.question,
      resolvedAtMs: event.resolvedAtMs,
      uid: row.minerUid,
      predictedAtMs: row.predictedAtMs,
      outcome: { outcomeId: event.winningOutcomeId, name: winner?.name ?? "" },
      invalid: row.reasons.length > 0,
      pWin: row.pWin,
      pPredicted: row.pPredicted,
      called: row.called,
      brier: row.brier,
      marketBrier: row.marketBrier,
      marketPWin: prediction === undefined ? null : marketPWinOf(prediction, event),
    }];
  });
}
