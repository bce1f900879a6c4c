/**
 * The scoring job's first step: the settled events to look at (the event feed since the last run,
 * and events still open to late submissions), and the scoring of one event's stored predictions.
 */
import { isDeepStrictEqual } from "node:util";
import type { Fence } from "../runtime/mod.ts";
import type { EventStore } from "../../storage/event_store.ts";
import type { EventRecord, StoredEvent } from "../../storage/event_record.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import type { StoredPrediction } from "../../storage/assignment_record.ts";
import type { ScoredEventRecord, ScoreStore } from "../../storage/score_store.ts";
import type { ScoringProgress } from "./_scoring_progress.ts";
import { type FinalResolution, scoreStoredEvent } from "./stored_scoring.ts";

const FEED_PAGE = 1_000;
const PREDICTION_PAGE = 1_000;

export interface EventPassDeps {
  events: EventStore;
  assignments: Pick<AssignmentStore, "listEventPredictions" | "markScoredMany">;
  scores: ScoreStore;
  /** How long after an event settled a submission may still arrive (lease + grace). */
  lateSubmissionMs: number;
  /** How far behind the last change read the feed is read again (clock skew, late commits). */
  overlapMs: number;
  /** The scored settlement and the event's own now disagree (the scored one is kept). */
  onSettlementContradicted: (
    eventId: string,
    settlements: { kept: FinalResolution; reported: FinalResolution },
  ) => void;
}

/** How one event's scoring went. */
export type EventOutcome = "scored" | "unchanged" | "no_predictions" | "fenced";

/**
 * Settled events changed since `progress.feed` (re-read from `overlapMs` before it) and those
 * still watched, with the next progress: the last change read, and the watch list (each resolved
 * event from the feed is watched until `lateSubmissionMs` after its last change, plus the overlap).
 */
export async function settledEvents(
  deps: EventPassDeps,
  progress: ScoringProgress,
  nowMs: number,
): Promise<{ events: EventRecord[]; next: ScoringProgress }> {
  let after = progress.feed === null
    ? null
    : { updatedAtMs: progress.feed.updatedAtMs - deps.overlapMs, id: "" };
  let last = progress.feed;
  const found = new Map<string, EventRecord>();
  const watch: Record<string, number> = {};
  for (const [id, untilMs] of Object.entries(progress.watch)) if (untilMs >= nowMs) watch[id] = untilMs;
  for (;;) {
    const page: StoredEvent[] = await deps.events.listChanged(after, FEED_PAGE);
    for (const stored of page) {
      if (last === null || stored.updatedAtMs > last.updatedAtMs) {
        last = { updatedAtMs: stored.updatedAtMs, id: stored.event.id };
      }
      if (stored.event.resolution.resolutionStatus !== "resolved") continue;
      found.set(stored.event.id, stored.event);
      const untilMs = stored.updatedAtMs + deps.lateSubmissionMs + deps.overlapMs;
      if (untilMs >= nowMs) watch[stored.event.id] = Math.max(watch[stored.event.id] ?? 0, untilMs);
    }
    if (page.length < FEED_PAGE) break;
    const end = page.at(-1)!;
    after = { updatedAtMs: end.updatedAtMs, id: end.event.id };
  }
  for (const id of Object.keys(watch)) {
    if (found.has(id)) continue;
    const stored = await deps.events.get(id);
    if (stored?.event.resolution.resolutionStatus === "resolved") found.set(id, stored.event);
  }
  const events = [...found.values()].toSorted((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { events, next: { feed: last, watch } };
}

async function allPredictions(deps: EventPassDeps, eventId: string): Promise<StoredPrediction[]> {
  const all: StoredPrediction[] = [];
  for (;;) {
    const after = all.at(-1)?.agentPredictionId;
    const page = await deps.assignments.listEventPredictions(eventId, {
      limit: PREDICTION_PAGE,
      ...(after === undefined ? {} : { after }),
    });
    all.push(...page);
    if (page.length < PREDICTION_PAGE) return all;
  }
}

/** The event's own settlement, unless a stored one disagrees: a settled resolution is final. */
function finalResolution(
  deps: EventPassDeps,
  event: EventRecord,
  stored: ScoredEventRecord | null,
): FinalResolution {
  const own = {
    winningOutcomeId: event.resolution.winningOutcomeId!,
    resolvedAtMs: Date.parse(event.resolution.resolvedAt!),
  };
  if (stored === null) return own;
  const kept = { winningOutcomeId: stored.winningOutcomeId, resolvedAtMs: stored.resolvedAtMs };
  if (!isDeepStrictEqual(own, kept)) deps.onSettlementContradicted(event.id, { kept, reported: own });
  return kept;
}

/**
 * Scores the stored predictions of a resolved event (against its final resolution), stores the
 * event and its rows unless they are unchanged (the stored `scoredAt` is kept then), and marks
 * every prediction not yet marked as scored.
 */
export async function scoreOneEvent(
  deps: EventPassDeps,
  event: EventRecord,
  options: { nowMs: number; fence: Fence },
): Promise<EventOutcome> {
  const stored = await deps.scores.getEvent(event.id);
  const resolution = finalResolution(deps, event, stored);
  const predictions = await allPredictions(deps, event.id);
  if (predictions.length === 0) return "no_predictions";
  const { record, rows } = scoreStoredEvent(event, predictions, { resolution, scoredAtMs: options.nowMs });
  const unchanged = stored !== null &&
    isDeepStrictEqual({ ...stored, scoredAtMs: 0 }, { ...record, scoredAtMs: 0 }) &&
    isDeepStrictEqual(await deps.scores.eventPredictions(event.id), rows);
  if (!unchanged && !await deps.scores.putEventFenced(record, { predictions: rows, fence: options.fence })) {
    return "fenced";
  }
  const marked = {
    resolvedOutcomeId: resolution.winningOutcomeId,
    finalOutcomePrices: event.resolution.finalOutcomePrices,
  };
  const unmarked = predictions.filter((p) => p.scored === null).map((p) => p.agentPredictionId);
  for (let start = 0; start < unmarked.length; start += PREDICTION_PAGE) {
    await deps.assignments.markScoredMany(unmarked.slice(start, start + PREDICTION_PAGE), {
      scoredAtMs: options.nowMs,
      resolvedAtMs: resolution.resolvedAtMs,
      resolution: { resolutionStatus: "resolved", ...marked },
    });
  }
  return unchanged ? "unchanged" : "scored";
}
