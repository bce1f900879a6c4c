/**
 * The scoring job's event step, a batch of settled events at a time: a few storage calls per
 * batch (their stored scores, their predictions, one fenced write of what changed, one mark),
 * whatever the batch's size. Events already scored with nothing new are left alone.
 */
import { isDeepStrictEqual } from "node:util";
import type { Fence } from "../runtime/mod.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { ScoringPrediction } from "../../storage/assignment_record.ts";
import type { ScoredMarks } from "../../storage/assignment_store.ts";
import type { ScoredEventRecord, ScoredPredictionRecord } from "../../storage/score_store.ts";
import { type EventOutcome, type EventPassDeps, finalResolution } from "./_event_pass.ts";
import { type FinalResolution, scoreStoredEvent } from "./stored_scoring.ts";

/** Events per batch: about 10,000 predictions at 50 per event. */
export const EVENTS_PER_BATCH = 200;

interface Candidate {
  event: EventRecord;
  before: ScoredEventRecord | null;
  resolution: FinalResolution;
}

interface Scored extends Candidate {
  predictions: ScoringPrediction[];
  record: ScoredEventRecord;
  rows: ScoredPredictionRecord[];
}

export type OutcomeCounts = Record<EventOutcome, number>;

export function noOutcomes(): OutcomeCounts {
  return { scored: 0, unchanged: 0, no_predictions: 0, fenced: 0 };
}

function byEvent<T extends { eventId: string }>(items: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(item.eventId);
    if (group) group.push(item);
    else groups.set(item.eventId, [item]);
  }
  return groups;
}

/** Whether the stored record is what the event under `resolution` gives, its stats and `scoredAt` apart. */
function sameEvent(before: ScoredEventRecord, event: EventRecord, resolution: FinalResolution): boolean {
  const { record } = scoreStoredEvent(event, [], { resolution, scoredAtMs: before.scoredAtMs });
  return isDeepStrictEqual({ ...record, stats: before.stats }, before);
}

/**
 * The candidates to score again: all but those already scored, unchanged, and with every
 * prediction marked scored. Such an event's stored rows were computed from all its predictions
 * (a prediction is marked only after rows including it were stored, and predictions are never
 * changed or removed), so scoring it again would write nothing and mark nothing.
 */
async function toScore(deps: EventPassDeps, candidates: readonly Candidate[]): Promise<Candidate[]> {
  const settled = candidates.filter((c) => c.before !== null && sameEvent(c.before, c.event, c.resolution));
  const open = new Set(await deps.assignments.eventsWithUnscored(settled.map((c) => c.event.id)));
  const skipped = new Set(settled.filter((c) => !open.has(c.event.id)));
  return candidates.filter((c) => !skipped.has(c));
}

/** The scored events whose record or rows differ from what is stored (the stored `scoredAt` apart). */
async function changed(deps: EventPassDeps, scored: readonly Scored[]): Promise<Scored[]> {
  const same = (s: Scored) =>
    isDeepStrictEqual({ ...s.before, scoredAtMs: 0 }, { ...s.record, scoredAtMs: 0 });
  const rescored = scored.filter((s) => s.before !== null && same(s));
  const stored = byEvent(await deps.scores.predictionsOfEvents(rescored.map((s) => s.event.id)));
  const unchanged = new Set(rescored.filter((s) => isDeepStrictEqual(stored.get(s.event.id) ?? [], s.rows)));
  return scored.filter((s) => !unchanged.has(s));
}

/** Every prediction scored, by event (the store leaves those already marked alone). */
function marksOf(scored: readonly Scored[], scoredAtMs: number): ScoredMarks[] {
  return scored.map(({ event, resolution, predictions }) => ({
    eventId: event.id,
    agentPredictionIds: predictions.map((p) => p.agentPredictionId),
    scoredAtMs,
    resolvedAtMs: resolution.resolvedAtMs,
    resolution: {
      resolutionStatus: "resolved" as const,
      resolvedOutcomeId: resolution.winningOutcomeId,
      finalOutcomePrices: event.resolution.finalOutcomePrices,
    },
  }));
}

/**
 * Scores a batch of resolved events (distinct ids) against their final resolutions: stores in one
 * fenced write the events and rows that changed (an unchanged event keeps its stored `scoredAt`),
 * then marks its predictions scored (those not marked yet), in one call. Stops at `fenced` (nothing
 * marked) when a newer run holds the job.
 */
export async function scoreEventBatch(
  deps: EventPassDeps,
  events: readonly EventRecord[],
  options: { nowMs: number; fence: Fence },
): Promise<OutcomeCounts> {
  const counts = noOutcomes();
  const stored = new Map((await deps.scores.getEvents(events.map((e) => e.id))).map((r) => [r.eventId, r]));
  const candidates = events.map((event) => {
    const before = stored.get(event.id) ?? null;
    return { event, before, resolution: finalResolution(deps, event, before) };
  });
  const todo = await toScore(deps, candidates);
  counts.unchanged += candidates.length - todo.length;
  const predictions = byEvent(await deps.assignments.scoringPredictionsOfEvents(todo.map((c) => c.event.id)));
  const scored: Scored[] = [];
  for (const candidate of todo) {
    const mine = predictions.get(candidate.event.id) ?? [];
    if (mine.length === 0) {
      counts.no_predictions++;
      continue;
    }
    const scoring = { resolution: candidate.resolution, scoredAtMs: options.nowMs };
    scored.push({ ...candidate, predictions: mine, ...scoreStoredEvent(candidate.event, mine, scoring) });
  }
  const writes = await changed(deps, scored);
  const batch = writes.map(({ record, rows }) => ({ event: record, predictions: rows }));
  if (batch.length > 0 && !await deps.scores.putEventsFenced(batch, { fence: options.fence })) {
    counts.fenced++;
    return counts;
  }
  counts.scored += writes.length;
  counts.unchanged += scored.length - writes.length;
  const marks = marksOf(scored, options.nowMs);
  if (marks.length > 0) await deps.assignments.markScoredMany(marks);
  return counts;
}
