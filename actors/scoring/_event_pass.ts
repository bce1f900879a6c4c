/**
 * The scoring job's first step: the settled events to look at (the event feed since the last run,
 * and events still open to late submissions), and the settlement each is scored against.
 */
import { isDeepStrictEqual } from "node:util";
import type { EventStore } from "../../storage/event_store.ts";
import type { EventRecord, StoredEvent } from "../../storage/event_record.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import type { ScoredEventRecord, ScoreStore } from "../../storage/score_store.ts";
import type { ScoringProgress } from "./_scoring_progress.ts";
import type { FinalResolution } from "./stored_scoring.ts";

const FEED_PAGE = 1_000;

/** What the scoring job uses of the assignment store. */
export type ScoringAssignments = Pick<
  AssignmentStore,
  "scoringPredictionsOfEvents" | "eventsWithUnscored" | "markScoredMany"
>;

export interface EventPassDeps {
  events: EventStore;
  assignments: ScoringAssignments;
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

/** The event's own settlement, unless a stored one disagrees: a settled resolution is final. */
export function finalResolution(
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
