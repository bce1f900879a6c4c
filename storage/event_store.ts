import type { EventRecord, StoredEvent } from "./event_record.ts";

/** Position in the change feed: last seen (updatedAtMs, id). */
export interface ChangeCursor {
  updatedAtMs: number;
  id: string;
}

/**
 * Port for market events. Each event is written only by its EventActor, except `retireSource`,
 * which bumps the version of every event it retires so that a racing actor's write loses its
 * condition and re-reads.
 */
export interface EventStore {
  /** The stored event, retired or not. */
  get(id: string): Promise<StoredEvent | null>;
  /**
   * Writes `event` as a live (not retired) event if the stored version is still `expectedVersion`
   * (0 = must not exist yet). Returns the new stored event, or null when the condition was lost.
   */
  put(event: EventRecord, expectedVersion: number, nowMs: number): Promise<StoredEvent | null>;
  /** Events written (retirements included) after `after`, ordered by (updatedAtMs, id), at most `limit`. */
  listChanged(after: ChangeCursor | null, limit: number): Promise<StoredEvent[]>;
  /** How many live (not retired) events are stored. */
  count(): Promise<number>;
  /**
   * Retires every live event whose `event.source` is `source`, at `nowMs` (each gets the next
   * version and a new place in the change feed); returns how many. Retiring again finds none.
   */
  retireSource(source: string, nowMs: number): Promise<number>;
}
