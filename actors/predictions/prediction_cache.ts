import { LRUCache } from "lru-cache";
import type { Clock } from "../kernel/mod.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { CustomerPrediction, ScoredMiners } from "./customer_prediction.ts";

/** A rendered prediction and what it was rendered from. */
export interface CachedPrediction {
  /** The catalog event it was rendered from (the snapshot's object). */
  event: EventRecord;
  /** The leaderboard's scores it was weighted with (the view's object). */
  scored: ScoredMiners;
  prediction: CustomerPrediction;
  /** `prediction` as JSON, written the first time it is asked for. */
  json?: string;
}

export interface PredictionCacheOptions {
  /** The longest an entry is kept (`FGW_PREDICTIONS_CACHE_MS`); 0 keeps nothing. */
  ttlMs: number;
  /** Most events kept (the least recently used is dropped beyond it). */
  maxEvents: number;
  clock: Clock;
}

/**
 * Rendered customer predictions by event id (docs/predictions.md "Freshness"). An entry answers only
 * while its event and scores are the very objects the catalog and leaderboard views hold now, until
 * `invalidate` names its event (a new prediction was stored), and for at most `ttlMs`.
 */
export class PredictionCache {
  readonly #kept: LRUCache<string, CachedPrediction> | null;

  /**
   * Bounded by a size of one per entry rather than `max`: with `max`, lru-cache allocates and fills
   * its arrays (and its TTL arrays) for every entry up front, about 8 ms of CPU at every service
   * start for 50,000.
   */
  constructor(options: PredictionCacheOptions) {
    this.#kept = options.ttlMs > 0
      ? new LRUCache({
        maxSize: options.maxEvents,
        sizeCalculation: () => 1,
        ttl: options.ttlMs,
        ttlResolution: 0,
        perf: { now: options.clock },
      })
      : null;
  }

  /** The entry of `event` when it was rendered from this event and these scores. */
  get(event: EventRecord, scored: ScoredMiners): CachedPrediction | undefined {
    const kept = this.#kept?.get(event.id);
    return kept && kept.event === event && kept.scored === scored ? kept : undefined;
  }

  set(entry: CachedPrediction): void {
    this.#kept?.set(entry.event.id, entry);
  }

  /** Forgets the entries of `eventIds`: their stored predictions changed. */
  invalidate(eventIds: Iterable<string>): void {
    if (!this.#kept) return;
    for (const id of eventIds) this.#kept.delete(id);
  }
}
