import type { Clock } from "../kernel/mod.ts";
import type { EventStore } from "../../storage/event_store.ts";
import type { StoredEvent } from "../../storage/event_record.ts";
import { CatalogSnapshot, type IndexedEvent, indexEvent } from "./catalog_snapshot.ts";

export interface CatalogViewOptions {
  store: EventStore;
  clock: Clock;
  /** How long a snapshot stays available to the cursors that pinned it. */
  retainMs: number;
  /** Re-read this far behind the newest change seen: instance clock skew and late commits. */
  overlapMs?: number;
  /** Re-read the whole catalog this often, repairing anything the change feed missed. */
  fullReloadMs?: number;
  /** `poll` publishes a new snapshot at most this often. */
  publishMs?: number;
  /** Most snapshots kept for cursors at once. */
  maxRetained?: number;
}

const FEED_PAGE = 2_000;

/**
 * The read model behind `/v1/events`: every event, refreshed from storage's change feed, served
 * as immutable snapshots. Works the same whichever instance wrote the change. A retired event
 * leaves the next snapshot (and so the listing and the random pool) when its retirement arrives.
 */
export class CatalogView {
  readonly #options: CatalogViewOptions;
  /** Every event seen, by id; a retired one keeps its version with no item. */
  readonly #items = new Map<string, { version: number; item: IndexedEvent | null }>();
  readonly #retained: CatalogSnapshot[] = [];
  readonly #viewId = crypto.randomUUID().slice(0, 8);
  #published = 0;
  #current: CatalogSnapshot;
  #feedMs = 0;
  #loaded = false;
  #dirty = false;
  #lastFullMs = 0;
  #refreshing: Promise<void> | undefined;
  #queued: Promise<void> | undefined;

  constructor(options: CatalogViewOptions) {
    this.#options = options;
    this.#current = new CatalogSnapshot(`${this.#viewId}.0`, options.clock(), []);
  }

  /** True once the first full load from storage has completed. */
  get loaded(): boolean {
    return this.#loaded;
  }

  /** The newest snapshot. */
  current(): CatalogSnapshot {
    return this.#current;
  }

  /** The snapshot a cursor pinned, if still retained by this instance. */
  pinned(id: string): CatalogSnapshot | undefined {
    return this.#retained.find((snapshot) => snapshot.id === id);
  }

  /** Pulls every change written so far and publishes a snapshot when any arrived. */
  async refresh(): Promise<void> {
    await this.#pullAfterAnyInFlight();
    if (this.#dirty) this.#publish();
  }

  /** The timer's refresh: pulls changes, publishes at most once per `publishMs`. */
  async poll(): Promise<void> {
    await this.#pullAfterAnyInFlight();
    const sinceLast = this.#options.clock() - this.#current.computedAtMs;
    if (this.#dirty && sinceLast >= (this.#options.publishMs ?? 0)) this.#publish();
  }

  /** A pull that starts after any pull in flight (whose read may predate the caller's writes). */
  #pullAfterAnyInFlight(): Promise<void> {
    if (!this.#refreshing) {
      this.#refreshing = this.#pull().finally(() => this.#refreshing = undefined);
      return this.#refreshing;
    }
    this.#queued ??= this.#refreshing.catch(() => {}).then(() => {
      this.#queued = undefined;
      return this.#pullAfterAnyInFlight();
    });
    return this.#queued;
  }

  async #pull(): Promise<void> {
    const now = this.#options.clock();
    const full = !this.#loaded || now - this.#lastFullMs >= (this.#options.fullReloadMs ?? 5 * 60_000);
    const overlap = this.#options.overlapMs ?? 30_000;
    let after = full ? null : { updatedAtMs: Math.max(0, this.#feedMs - overlap), id: "" };
    for (;;) {
      const page = await this.#options.store.listChanged(after, FEED_PAGE);
      for (const stored of page) this.#apply(stored);
      const last = page.at(-1);
      if (!last || page.length < FEED_PAGE) break;
      after = { updatedAtMs: last.updatedAtMs, id: last.event.id };
    }
    if (full) this.#lastFullMs = now;
    if (!this.#loaded) this.#dirty = true;
    this.#loaded = true;
  }

  #apply(stored: StoredEvent): void {
    this.#feedMs = Math.max(this.#feedMs, stored.updatedAtMs);
    const known = this.#items.get(stored.event.id);
    if (known && known.version >= stored.version) return;
    const item = stored.retired ? null : indexEvent(stored.event);
    this.#items.set(stored.event.id, { version: stored.version, item });
    this.#dirty = true;
  }

  #publish(): void {
    this.#dirty = false;
    const now = this.#options.clock();
    const items: IndexedEvent[] = [];
    for (const { item } of this.#items.values()) if (item) items.push(item);
    this.#current = new CatalogSnapshot(`${this.#viewId}.${++this.#published}`, now, items);
    this.#current.sorted("endDate");
    this.#retained.push(this.#current);
    const oldest = now - this.#options.retainMs;
    const max = this.#options.maxRetained ?? 120;
    while (this.#retained.length > max || (this.#retained[0]?.computedAtMs ?? now) < oldest) {
      this.#retained.shift();
    }
  }
}
