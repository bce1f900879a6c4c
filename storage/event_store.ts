import type { EventRecord, StoredEvent } from "./event_record.ts";

/** Position in the change feed: last seen (updatedAtMs, id). */
export interface ChangeCursor {
  updatedAtMs: number;
  id: string;
}

/** Port for market events. Each event is written only by its EventActor. */
export interface EventStore {
  get(id: string): Promise<StoredEvent | null>;
  /**
   * Writes `event` if the stored version is still `expectedVersion` (0 = must not exist yet).
   * Returns the new stored event, or null when the condition was lost.
   */
  put(event: EventRecord, expectedVersion: number, nowMs: number): Promise<StoredEvent | null>;
  /** Events written after `after`, ordered by (updatedAtMs, id), at most `limit`. */
  listChanged(after: ChangeCursor | null, limit: number): Promise<StoredEvent[]>;
  /** How many events are stored. */
  count(): Promise<number>;
}
