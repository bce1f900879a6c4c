import { LRUCache } from "lru-cache";
import type { Clock } from "../../actors/kernel/mod.ts";

/** What a read's renderings are called: its JSON body, its CSV, its HTML page. */
export type RenderingKind = "json" | "csv" | "html";

/**
 * A read (a page of events, an event with its history) and its renderings, each made at most once
 * while the read is cached: the JSON route and the web page of the same read share one entry.
 */
export class Rendered<T> {
  readonly value: T;
  readonly #bodies = new Map<RenderingKind, string>();
  readonly #onGrow: (entry: Rendered<T>) => void;

  constructor(value: T, onGrow: (entry: Rendered<T>) => void = () => {}) {
    this.value = value;
    this.#onGrow = onGrow;
  }

  /** The rendering of `kind` made so far, if any. */
  body(kind: RenderingKind): string | undefined {
    return this.#bodies.get(kind);
  }

  /** Keeps `body` as the rendering of `kind` (the cache counts its size) and returns it. */
  keep(kind: RenderingKind, body: string): string {
    this.#bodies.set(kind, body);
    this.#onGrow(this);
    return body;
  }

  /** UTF-16 bytes of the renderings kept, plus a fixed share for the read itself. */
  get bytes(): number {
    let total = 512;
    for (const body of this.#bodies.values()) total += body.length * 2;
    return total;
  }
}

export interface RenderedCacheOptions {
  /** How long an entry is reused; 0 keeps nothing (every read is made anew). */
  ttlMs: number;
  /** Bound of the renderings kept, in bytes. */
  maxBytes: number;
  clock: Clock;
}

/**
 * Reads and their renderings by key (e.g. snapshot and query string), each kept for `ttlMs` on the
 * service's clock, bounded in bytes; an entry's size grows as its renderings are kept.
 */
export class RenderedCache<T> {
  readonly #cache: LRUCache<string, Rendered<T>> | null;

  constructor(options: RenderedCacheOptions) {
    this.#cache = options.ttlMs === 0 ? null : new LRUCache<string, Rendered<T>>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => entry.bytes,
      ttl: options.ttlMs,
      // Read the service's clock on every check: by default the LRU keeps one reading for 1 ms of
      // timers, so a clock moved between two requests with no timer run in between went unseen.
      ttlResolution: 0,
      perf: { now: options.clock },
    });
  }

  /** The entry of `key` while cached: for less than `ttlMs` after it was added. */
  get(key: string): Rendered<T> | undefined {
    const entry = this.#cache?.get(key);
    // The LRU still serves an entry at exactly its time to live; a page kept `ttlMs` is not.
    return entry && this.remainingMs(key) > 0 ? entry : undefined;
  }

  /** Caches `value` under `key` (nothing is kept with a `ttlMs` of 0) and returns its entry. */
  add(key: string, value: T): Rendered<T> {
    const cache = this.#cache;
    if (!cache) return new Rendered(value);
    // A kept rendering sets the entry again: its size is counted anew, its time to live is not reset.
    const entry = new Rendered(value, (grown) => {
      if (cache.peek(key) === grown) cache.set(key, grown, { noUpdateTTL: true });
    });
    cache.set(key, entry);
    return entry;
  }

  /** An entry for `value` that is not cached (a read no key should keep). */
  uncached(value: T): Rendered<T> {
    return new Rendered(value);
  }

  /** Milliseconds `key` stays cached (0 once gone). */
  remainingMs(key: string): number {
    return Math.max(0, this.#cache?.getRemainingTTL(key) ?? 0);
  }
}
