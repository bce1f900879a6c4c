import { LRUCache } from "lru-cache";
import type { Clock } from "../kernel/mod.ts";
import type { PredictionDigest } from "../../storage/assignment_record.ts";

/** Reads the stored predictions of many events in one storage call. */
export type ReadDigests = (eventIds: readonly string[]) => Promise<PredictionDigest[]>;

export interface DigestCacheOptions {
  read: ReadDigests;
  /** How long an event's predictions, once read, are served from memory; 0 reads every time. */
  ttlMs: number;
  /** Most events kept at once (the least recently read is dropped beyond it). */
  maxEvents: number;
  clock: Clock;
}

/**
 * The stored predictions of events, kept in memory for `ttlMs` after they were read (docs/predictions.md
 * "Freshness"). The events a call lacks are read together in ONE storage call, and an event another
 * call is already reading waits for that read instead of starting its own, so a burst of requests for
 * one event costs one read.
 */
export class DigestCache {
  readonly #options: DigestCacheOptions;
  readonly #kept: LRUCache<string, readonly PredictionDigest[]> | null;
  readonly #reading = new Map<string, Promise<readonly PredictionDigest[]>>();

  constructor(options: DigestCacheOptions) {
    this.#options = options;
    this.#kept = options.ttlMs > 0
      ? new LRUCache({
        max: options.maxEvents,
        ttl: options.ttlMs,
        ttlResolution: 0,
        perf: { now: options.clock },
      })
      : null;
  }

  /** Each event's stored predictions (any order), by event id. */
  async digestsOf(eventIds: readonly string[]): Promise<Map<string, readonly PredictionDigest[]>> {
    const found = new Map<string, readonly PredictionDigest[]>();
    const waiting: Promise<void>[] = [];
    const missing: string[] = [];
    for (const id of eventIds) {
      const kept = this.#kept?.get(id);
      if (kept) found.set(id, kept);
      else {
        const reading = this.#reading.get(id);
        if (reading) waiting.push(reading.then((digests) => void found.set(id, digests)));
        else missing.push(id);
      }
    }
    if (missing.length > 0) waiting.push(this.#readMissing(missing, found));
    await Promise.all(waiting);
    return found;
  }

  async #readMissing(eventIds: string[], found: Map<string, readonly PredictionDigest[]>): Promise<void> {
    const read = this.#options.read(eventIds).then((digests) => Map.groupBy(digests, (d) => d.eventId));
    for (const id of eventIds) {
      const one = read.then((byEvent) => byEvent.get(id) ?? []);
      one.catch(() => {}); // a failed read reaches the callers waiting on it; nobody else must see it
      this.#reading.set(id, one);
    }
    try {
      const byEvent = await read;
      for (const id of eventIds) {
        const digests = byEvent.get(id) ?? [];
        this.#kept?.set(id, digests);
        found.set(id, digests);
      }
    } finally {
      for (const id of eventIds) this.#reading.delete(id);
    }
  }
}
