import type { EventRecord } from "../../storage/event_record.ts";

/** The orders `/v1/events` can list in. */
export type SortBy = "endDate" | "startDate" | "volume" | "liquidity" | "resolvedAt";

/** A sort key; null (no resolution yet) sorts after every value. */
export type SortKey = number | null;

/** An event with values precomputed for filtering and sorting. */
export interface IndexedEvent {
  readonly event: EventRecord;
  readonly endMs: number;
  readonly startMs: number;
  readonly resolvedMs: number | null;
  readonly haystack: string;
  readonly prices: readonly number[];
  /** The lowest and highest of `prices` (NaN when there are none, so every bound test fails). */
  readonly lowestPrice: number;
  readonly highestPrice: number;
  /** `JSON.stringify(event)`, made once per event version (pages are spliced from these). */
  readonly json: string;
}

const ASCENDING: Record<SortBy, boolean> = {
  endDate: true,
  startDate: true,
  resolvedAt: true,
  volume: false,
  liquidity: false,
};

/** The key of `item` under `sortBy`. */
export function sortKeyOf(item: IndexedEvent, sortBy: SortBy): SortKey {
  switch (sortBy) {
    case "endDate":
      return item.endMs;
    case "startDate":
      return item.startMs;
    case "resolvedAt":
      return item.resolvedMs;
    case "volume":
      return item.event.volumeUsd;
    case "liquidity":
      return item.event.liquidityUsd;
  }
}

/** A place in a sort order: the sort key, then the id. */
export interface SortPosition {
  key: SortKey;
  id: string;
}

/** A comparator of positions under `sortBy`: negative when `a` lists first; id ascending breaks ties. */
export function comparePositions(sortBy: SortBy): (a: SortPosition, b: SortPosition) => number {
  const ascending = ASCENDING[sortBy];
  return (a, b) => {
    if (a.key !== b.key) {
      if (a.key === null) return 1;
      if (b.key === null) return -1;
      return ascending ? a.key - b.key : b.key - a.key;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

/** `item`'s position under `sortBy`. */
export function positionOf(item: IndexedEvent, sortBy: SortBy): SortPosition {
  return { key: sortKeyOf(item, sortBy), id: item.event.id };
}

/** Precomputes the filter and sort values of one event. */
export function indexEvent(event: EventRecord): IndexedEvent {
  const prices = Object.values(event.currentOutcomePrices);
  return {
    event,
    endMs: Date.parse(event.endDate),
    startMs: Date.parse(event.startDate),
    resolvedMs: event.resolution.resolvedAt ? Date.parse(event.resolution.resolvedAt) : null,
    haystack: `${event.question}\n${event.description}`.toLowerCase(),
    prices,
    lowestPrice: prices.length === 0 ? Number.NaN : Math.min(...prices),
    highestPrice: prices.length === 0 ? Number.NaN : Math.max(...prices),
    json: JSON.stringify(event),
  };
}

/**
 * An immutable view of the whole catalog at one moment, sorted every way the API lists.
 * Cursors pin a snapshot by `id` (unique across instances) so walking pages is stable while prices move.
 */
export class CatalogSnapshot {
  readonly id: string;
  readonly computedAtMs: number;
  readonly size: number;
  readonly #items: readonly IndexedEvent[];
  readonly #sorted = new Map<SortBy, readonly IndexedEvent[]>();
  #byId: Map<string, IndexedEvent> | undefined;

  constructor(id: string, computedAtMs: number, items: readonly IndexedEvent[]) {
    this.id = id;
    this.computedAtMs = computedAtMs;
    this.#items = items;
    this.size = items.length;
  }

  /** Events in `sortBy` order (sorted once per snapshot, on first use). */
  sorted(sortBy: SortBy): readonly IndexedEvent[] {
    let list = this.#sorted.get(sortBy);
    if (!list) {
      const compare = comparePositions(sortBy);
      const keyed = this.#items.map((item) => ({ item, position: positionOf(item, sortBy) }));
      keyed.sort((a, b) => compare(a.position, b.position));
      list = keyed.map((entry) => entry.item);
      this.#sorted.set(sortBy, list);
    }
    return list;
  }

  /** The event `id` of this snapshot (indexed once per snapshot, on first use). */
  byId(id: string): IndexedEvent | undefined {
    this.#byId ??= new Map(this.#items.map((item) => [item.event.id, item]));
    return this.#byId.get(id);
  }

  /** Index of the first event listed strictly after `position` in `sortBy` order. */
  indexAfter(sortBy: SortBy, position: SortPosition): number {
    const list = this.sorted(sortBy);
    const compare = comparePositions(sortBy);
    let low = 0;
    let high = list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const item = list[mid]!;
      if (compare(positionOf(item, sortBy), position) <= 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
