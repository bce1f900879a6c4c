/**
 * Scorer v1 (`scorerVersion` "1.0.0"), exactly SCORING.md: pure, no I/O and no clock — the run's
 * `computedAt` is part of the input. Every number is the same whatever order the input's rows
 * come in; the output's keys are sorted (predictions and events by id, miners by uid).
 */
import type { ScorerEvent, ScorerInput } from "./scorer_input.ts";
import { type PredictionResult, type ScoredPrediction, scorePrediction } from "./prediction_score.ts";
import { countedPredictions } from "./latest_rule.ts";
import { type EventResult, scoreEvent } from "./event_stats.ts";
import { type MinerScoring, scoreMiner } from "./miner_scoring.ts";
import { forecastingPayouts } from "./payouts.ts";
import { compareCodePoints } from "./scoring_math.ts";

export const SCORER_VERSION = "1.0.0";

/** A registered miner's leaderboard numbers. */
export interface MinerResult {
  uid: number;
  scoring: MinerScoring;
  forecastingIncentive: number;
  forecastingAlphaPerDay: number;
  forecastingUsdPerDay: number;
}

/** The scorer's output (the `expected` of `golden/scoring-v1.json`). */
export interface ScorerOutput {
  /** By agentPredictionId: every prediction of the input. */
  predictions: Record<string, PredictionResult>;
  /** By event id: every resolved event. */
  events: Record<string, EventResult>;
  /** By hotkey: every current registration. */
  miners: Record<string, MinerResult>;
  forecastingBudgetAlphaPerDay: number;
}

const DAY_MS = 86_400_000;

function isResolved(event: ScorerEvent): boolean {
  return event.resolution.resolutionStatus === "resolved";
}

function groupByEvent(rows: readonly ScoredPrediction[]): Map<string, ScoredPrediction[]> {
  const groups = new Map<string, ScoredPrediction[]>();
  for (const row of rows) {
    const group = groups.get(row.event.id);
    if (group === undefined) groups.set(row.event.id, [row]);
    else group.push(row);
  }
  return groups;
}

function eventResults(input: ScorerInput, counted: readonly ScoredPrediction[]): Record<string, EventResult> {
  const byEvent = groupByEvent(counted);
  const resolved = input.events.filter(isResolved).sort((a, b) => compareCodePoints(a.id, b.id));
  return Object.fromEntries(
    resolved.map((event) => [event.id, scoreEvent(event, byEvent.get(event.id) ?? [])]),
  );
}

function minerKey(hotkey: string, uid: number | null): string {
  return JSON.stringify([hotkey, uid]);
}

/** Counted rows on events resolved in `(computedAt − windowDays, computedAt]`, by (hotkey, uid). */
function windowRowsByMiner(counted: readonly ScoredPrediction[], input: ScorerInput) {
  const end = Date.parse(input.computedAt);
  const start = end - input.windowDays * DAY_MS;
  const byMiner = new Map<string, ScoredPrediction[]>();
  for (const row of counted) {
    if (row.resolvedAtMs === null || row.resolvedAtMs <= start || row.resolvedAtMs > end) continue;
    const key = minerKey(row.prediction.minerHotkey, row.prediction.minerUid);
    const rows = byMiner.get(key);
    if (rows === undefined) byMiner.set(key, [row]);
    else rows.push(row);
  }
  return byMiner;
}

function minerResults(input: ScorerInput, counted: readonly ScoredPrediction[]) {
  const byMiner = windowRowsByMiner(counted, input);
  const computedAtMs = Date.parse(input.computedAt);
  const registrations = [...input.registrations].sort((a, b) => a.uid - b.uid);
  const scorings = registrations.map((registration) => {
    const rows = byMiner.get(minerKey(registration.hotkey, registration.uid)) ?? [];
    const firstSeenAtMs = Date.parse(registration.firstSeenAt);
    return { registration, ...scoreMiner(rows, { computedAtMs, firstSeenAtMs }) };
  });
  const payouts = forecastingPayouts(
    scorings.map(({ registration, unroundedScore }) => ({ uid: registration.uid, score: unroundedScore })),
    input.payout,
  );
  const miners = Object.fromEntries(scorings.map(({ registration, scoring }) => {
    const payout = payouts.miners.get(registration.uid)!;
    return [registration.hotkey, { uid: registration.uid, scoring, ...payout }];
  }));
  return { miners, forecastingBudgetAlphaPerDay: payouts.forecastingBudgetAlphaPerDay };
}

/** Scores a parsed scorer input (see `parseScorerInput`). */
export function scoreV1(input: ScorerInput): ScorerOutput {
  const events = new Map(input.events.map((event) => [event.id, event]));
  const scored = input.predictions
    .map((prediction) => scorePrediction(prediction, events.get(prediction.eventId)!))
    .sort((a, b) => compareCodePoints(a.prediction.agentPredictionId, b.prediction.agentPredictionId));
  const counted = countedPredictions(scored);
  const { miners, forecastingBudgetAlphaPerDay } = minerResults(input, counted);
  return {
    predictions: Object.fromEntries(scored.map((row) => [row.prediction.agentPredictionId, row.result])),
    events: eventResults(input, counted),
    miners,
    forecastingBudgetAlphaPerDay,
  };
}
