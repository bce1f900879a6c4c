import type { PredictionDigest } from "../../storage/assignment_record.ts";

/** Reads the stored predictions of many events in one storage call. */
export type ReadDigests = (eventIds: readonly string[]) => Promise<PredictionDigest[]>;

/**
 * Reads events' stored predictions for the customer prediction cache: the events one call needs
 * are read together in ONE storage call, and an event another call is already reading waits for
 * that read instead of starting its own, so a burst of requests for one event costs one read. A
 * failed read fails the calls waiting on it and is forgotten.
 */
export class DigestReads {
  readonly #read: ReadDigests;
  readonly #reading = new Map<string, Promise<readonly PredictionDigest[]>>();

  constructor(read: ReadDigests) {
    this.#read = read;
  }

  /** Each event's stored predictions (any order), by event id. */
  async digestsOf(eventIds: readonly string[]): Promise<Map<string, readonly PredictionDigest[]>> {
    const found = new Map<string, readonly PredictionDigest[]>();
    const waiting: Promise<void>[] = [];
    const missing: string[] = [];
    for (const id of eventIds) {
      const reading = this.#reading.get(id);
      if (reading) waiting.push(reading.then((digests) => void found.set(id, digests)));
      else missing.push(id);
    }
    if (missing.length > 0) waiting.push(this.#readTogether(missing, found));
    await Promise.all(waiting);
    return found;
  }

  async #readTogether(eventIds: string[], found: Map<string, readonly PredictionDigest[]>): Promise<void> {
    const read = this.#read(eventIds).then((digests) => Map.groupBy(digests, (d) => d.eventId));
    for (const id of eventIds) {
      const one = read.then((byEvent) => byEvent.get(id) ?? []);
      one.catch(() => {}); // a failed read reaches the calls waiting on it; nobody else must see it
      this.#reading.set(id, one);
    }
    try {
      const byEvent = await read;
      for (const id of eventIds) found.set(id, byEvent.get(id) ?? []);
    } finally {
      for (const id of eventIds) this.#reading.delete(id);
    }
  }
}
