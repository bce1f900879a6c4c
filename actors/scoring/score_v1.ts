/**
 * Scorer v1 (`scorerVersion` "1.0.0"), exactly docs/scoring.md: pure, no I/O and no clock — the run's
 * `computedAt` is part of the input. Every number is the same whatever order the input's rows
 * come in; the output's keys are sorted (predictions and events by id, miners by uid). It runs the
 * streaming scorer (`ScorerV1Stream`) over the input's events in the stream order.
 */
import type { ScorerInput, ScorerPrediction } from "./scorer_input.ts";
import type { PredictionResult } from "./prediction_score.ts";
import type { EventResult } from "./event_stats.ts";
import { compareEventsForStream, type MinerResult, ScorerV1Stream } from "./score_stream.ts";
import { compareCodePoints } from "./scoring_math.ts";

export const SCORER_VERSION = "1.0.0";

/** The scorer's output (the `expected` of `tests/scoring/golden/scoring-v1.json`). */
export interface ScorerOutput {
  /** By agentPredictionId: every prediction of the input. */
  predictions: Record<string, PredictionResult>;
  /** By event id: every resolved event. */
  events: Record<string, EventResult>;
  /** By hotkey: every current registration. */
  miners: Record<string, MinerResult>;
  forecastingBudgetAlphaPerDay: number;
}

function byEvent(predictions: readonly ScorerPrediction[]): Map<string, ScorerPrediction[]> {
  const groups = new Map<string, ScorerPrediction[]>();
  for (const prediction of predictions) {
    const group = groups.get(prediction.eventId);
    if (group === undefined) groups.set(prediction.eventId, [prediction]);
    else group.push(prediction);
  }
  return groups;
}

function sortedRecord<T>(entries: [string, T][]): Record<string, T> {
  return Object.fromEntries(entries.sort(([a], [b]) => compareCodePoints(a, b)));
}

/** Scores a parsed scorer input (see `parseScorerInput`). */
export function scoreV1(input: ScorerInput): ScorerOutput {
  const stream = new ScorerV1Stream({
    computedAtMs: Date.parse(input.computedAt),
    windowDays: input.windowDays,
    registrations: input.registrations.map(({ hotkey, uid, firstSeenAt }) => ({
      hotkey,
      uid,
      firstSeenAtMs: Date.parse(firstSeenAt),
    })),
  });
  const groups = byEvent(input.predictions);
  const predictions: [string, PredictionResult][] = [];
  const events: [string, EventResult][] = [];
  for (const event of input.events.toSorted(compareEventsForStream)) {
    const { scored, result } = stream.addEvent(event, groups.get(event.id) ?? []);
    for (const row of scored) predictions.push([row.prediction.agentPredictionId, row.result]);
    if (result !== null) events.push([event.id, result]);
  }
  return {
    predictions: sortedRecord(predictions),
    events: sortedRecord(events),
    ...stream.finish(input.payout),
  };
}
