import type { Clock } from "../../actors/kernel/mod.ts";
import type { CatalogSnapshot, CatalogView, IndexedEvent, PagePosition } from "../../actors/catalog/mod.ts";
import { runQuery } from "../../actors/catalog/mod.ts";
import type { CursorCodec } from "../http/cursor.ts";
import { type Rendered, RenderedCache } from "../http/rendered_cache.ts";
import { type EventsParams, type EventsRequest, eventsRequestParser } from "./events_query.ts";

export interface CatalogPagesDeps {
  catalog: CatalogView;
  cursors: CursorCodec;
  clock: Clock;
  /** How long a page is reused for the same query and snapshot; 0 reads every time. */
  cacheMs: number;
}

/** One page of `GET /v1/events` as read from a catalog snapshot. */
export interface CatalogPage {
  snapshot: CatalogSnapshot;
  params: EventsParams;
  items: readonly IndexedEvent[];
  nextCursor: string | null;
}

interface EventsCursor {
  s: string;
  k: PagePosition["key"];
  i: string;
}

const CACHE_BYTES = 64 * 2 ** 20;

/**
 * The pages of the catalog, read once per snapshot and query string and kept `cacheMs` with their
 * renderings: `GET /v1/events` (JSON, CSV) and the `/events` web page read through here, so the
 * same query lists the same events on both. A query string is only cached after it parsed, so a
 * hit parses nothing.
 */
export class CatalogPages {
  readonly #deps: CatalogPagesDeps;
  readonly #cache: RenderedCache<CatalogPage>;
  readonly #parse = eventsRequestParser();
  // The last page served, checked before the LRU: a burst of one query (a client polling, a
  // front page) skips the LRU's bookkeeping, a few percent of the cached page's rate.
  #last: { key: string; entry: Rendered<CatalogPage>; until: number } | undefined;

  constructor(deps: CatalogPagesDeps) {
    this.#deps = deps;
    this.#cache = new RenderedCache({ ttlMs: deps.cacheMs, maxBytes: CACHE_BYTES, clock: deps.clock });
  }

  /**
   * The page of `search` (the raw query string with its `?`, or ""), whose parameters `query`
   * gives one value per name (read only on a miss; 400 when they are invalid).
   */
  read(search: string, query: () => Record<string, string>): Rendered<CatalogPage> {
    const key = `${this.#deps.catalog.current().id}${search}`;
    const now = this.#deps.clock();
    const last = this.#last;
    if (last?.key === key && now < last.until) return last.entry;
    const entry = this.#cache.get(key) ?? this.#cache.add(key, this.#readPage(this.#parse(query())));
    this.#last = { key, entry, until: now + this.#cache.remainingMs(key) };
    return entry;
  }

  #readPage({ params, query, fingerprint }: EventsRequest): CatalogPage {
    const { snapshot, position } = this.#startOf(params.cursor, fingerprint);
    const page = runQuery(snapshot, query, { after: position, nowMs: this.#deps.clock() });
    const nextCursor = page.next
      ? this.#deps.cursors.encode<EventsCursor>(fingerprint, {
        s: snapshot.id,
        k: page.next.key,
        i: page.next.id,
      })
      : null;
    return { snapshot, params, items: page.items, nextCursor };
  }

  /** The snapshot to read (the one the cursor pinned, while retained) and where to resume. */
  #startOf(given: string | undefined, fingerprint: string) {
    const { catalog, cursors } = this.#deps;
    if (!given) return { snapshot: catalog.current(), position: null };
    const cursor = cursors.decode<EventsCursor>(fingerprint, given);
    const snapshot = catalog.pinned(cursor.s) ?? catalog.current();
    return { snapshot, position: { key: cursor.k, id: cursor.i } };
  }
}
