/**
 * Where the scoring job stands, shared by every instance: one JSON record in the settings store
 * (`scoring_progress`), written fenced by the job's lease after the events it covers are scored.
 */
import { z } from "zod";
import type { ChangeCursor } from "../../storage/event_store.ts";

export const PROGRESS_SETTING = "scoring_progress";

export interface ScoringProgress {
  /** The last change of the event feed read (the next run re-reads a little before it). */
  feed: ChangeCursor | null;
  /** Settled events still open to late submissions: event id → until when (ms). */
  watch: Record<string, number>;
}

const progressSchema = z.object({
  feed: z.object({ updatedAtMs: z.number(), id: z.string() }).nullable(),
  watch: z.record(z.string(), z.number()),
});

export const NO_PROGRESS: ScoringProgress = Object.freeze({ feed: null, watch: {} });

export function encodeProgress(progress: ScoringProgress): string {
  const watch = Object.fromEntries(Object.entries(progress.watch).toSorted(([a], [b]) => a < b ? -1 : 1));
  return JSON.stringify({ feed: progress.feed, watch });
}

/** Parses a stored record; throws a TypeError when it is not one. */
export function decodeProgress(value: string | null): ScoringProgress {
  if (value === null) return NO_PROGRESS;
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    throw new TypeError(`Invalid stored scoring progress (${PROGRESS_SETTING}): not JSON`);
  }
  const parsed = progressSchema.safeParse(json);
  if (!parsed.success) throw new TypeError(`Invalid stored scoring progress (${PROGRESS_SETTING})`);
  return parsed.data;
}
