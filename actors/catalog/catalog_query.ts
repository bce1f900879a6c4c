import type { ResolutionStatus } from "../../storage/event_record.ts";
import {
  type CatalogSnapshot,
  type IndexedEvent,
  positionOf,
  type SortBy,
  type SortPosition,
} from "./catalog_snapshot.ts";

/** A validated `/v1/events` query (route-level rules already applied). */
export interface EventQuery {
  sortBy: SortBy;
  status?: ResolutionStatus;
  resolvedSinceMs?: number;
  maxPrice?: number;
  minPrice?: number;
  minVolume?: number;
  minLiquidity?: number;
  hasResolution?: boolean;
  q?: string;
  tagId?: number;
  source?: string;
  includeEnded: boolean;
  limit: number;
}

/** Where the previous page ended. */
export type PagePosition = SortPosition;

/** Where a page starts and what "live" means for it. */
export interface PageOptions {
  /** Start strictly after this position; from the beginning when null. */
  after: PagePosition | null;
  /** The instant the live-only default compares end dates with. */
  nowMs: number;
}

export interface QueryPage {
  items: IndexedEvent[];
  /** Position of the last item when more may follow, else null. */
  next: PagePosition | null;
}

/** One page of `query` over `snapshot`. */
export function runQuery(snapshot: CatalogSnapshot, query: EventQuery, page: PageOptions): QueryPage {
  const list = snapshot.sorted(query.sortBy);
  const matches = matcher(query, page.nowMs);
  const items: IndexedEvent[] = [];
  let index = page.after ? snapshot.indexAfter(query.sortBy, page.after) : 0;
  for (; index < list.length && items.length <= query.limit; index++) {
    const item = list[index]!;
    if (matches(item)) items.push(item);
  }
  const more = items.length > query.limit;
  if (more) items.pop();
  const last = items.at(-1);
  return {
    items,
    next: more && last ? positionOf(last, query.sortBy) : null,
  };
}

function liveOnly(query: EventQuery): boolean {
  if (query.includeEnded) return false;
  return query.status !== "resolved" && query.status !== "voided";
}

/** The conjunction of every filter the query sets, cheapest first. */
function matcher(query: EventQuery, nowMs: number): (item: IndexedEvent) => boolean {
  const tests: ((item: IndexedEvent) => boolean)[] = [];
  if (liveOnly(query)) tests.push((item) => item.endMs > nowMs);
  if (query.status) tests.push((item) => item.event.resolution.resolutionStatus === query.status);
  if (query.hasResolution !== undefined) {
    const wanted: ResolutionStatus = query.hasResolution ? "resolved" : "unresolved";
    tests.push((item) => item.event.resolution.resolutionStatus === wanted);
  }
  if (query.source !== undefined) tests.push((item) => item.event.source === query.source);
  if (query.resolvedSinceMs !== undefined) {
    const since = query.resolvedSinceMs;
    tests.push((item) => item.resolvedMs !== null && item.resolvedMs >= since);
  }
  if (query.minVolume !== undefined) tests.push((item) => item.event.volumeUsd >= query.minVolume!);
  if (query.minLiquidity !== undefined) tests.push((item) => item.event.liquidityUsd >= query.minLiquidity!);
  if (query.tagId !== undefined) tests.push((item) => item.event.tagsAtAdmission.includes(query.tagId!));
  // "Every current price is within the bound": the extreme one is (NaN, for no price, never is).
  if (query.maxPrice !== undefined) {
    const max = query.maxPrice;
    tests.push((item) => item.highestPrice <= max);
  }
  if (query.minPrice !== undefined) {
    const min = query.minPrice;
    tests.push((item) => item.lowestPrice >= min);
  }
  if (query.q !== undefined) {
    const needle = query.q.toLowerCase();
    tests.push((item) => item.haystack.includes(needle));
  }
  return allOf(tests);
}

/** The conjunction of `tests` (one or two filters, the usual case, are called without a loop). */
function allOf(tests: readonly ((item: IndexedEvent) => boolean)[]): (item: IndexedEvent) => boolean {
  const [first, second] = tests;
  if (tests.length === 0 || !first) return () => true;
  if (tests.length === 1) return first;
  if (tests.length === 2 && second) return (item) => first(item) && second(item);
  return (item) => {
    for (const test of tests) if (!test(item)) return false;
    return true;
  };
}
