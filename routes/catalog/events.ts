import type { OpenAPIHono } from "@hono/zod-openapi";
import { LRUCache } from "lru-cache";
import { type Clock, isoAt } from "../../actors/kernel/mod.ts";
import type { CatalogView } from "../../actors/catalog/mod.ts";
import type { CatalogSnapshot, IndexedEvent } from "../../actors/catalog/mod.ts";
import { type PagePosition, runQuery } from "../../actors/catalog/mod.ts";
import { pickFromPool, poolOf, type PoolRules } from "../../actors/catalog/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { AppEnv } from "../http/app_env.ts";
import { sendBody } from "../http/answer.ts";
import type { CursorCodec } from "../http/cursor.ts";
import { toCsv } from "../http/csv.ts";
import { type EventsRequest, eventsRequestParser } from "./events_query.ts";
import { singleValuedQuery } from "../http/validation.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import { listEventsRoute, randomEventRoute } from "./events_api.ts";

export const SCORER_VERSION = "1.0.0";

export interface EventRoutesDeps {
  catalog: CatalogView;
  cursors: CursorCodec;
  clock: Clock;
  pool: PoolRules;
  /** How long a rendered page is reused for the same query and snapshot; 0 renders every time. */
  cacheMs: number;
}

interface EventsCursor {
  s: string;
  k: PagePosition["key"];
  i: string;
}

interface RenderedPage {
  /**
   * The page as a string: Deno.serve writes a string body on its fast path, measured about twice
   * as fast as the same page as bytes (docs/benchmarks.md).
   */
  body: string;
  nextCursor: string | null;
  csv: boolean;
}

const EVENT_COLUMNS: (keyof EventRecord & string)[] = [
  "id",
  "source",
  "sourceMarketId",
  "question",
  "description",
  "outcomes",
  "endDate",
  "startDate",
  "tagsAtAdmission",
  "liquidityUsd",
  "volumeUsd",
  "volumeRecentUsd",
  "currentLiquidityUsd",
  "currentVolumeUsd",
  "currentOutcomePrices",
  "admittedAt",
  "lastSeenAt",
  "resolution",
  "outcomePricesAtAdmission",
];

const CACHE_BYTES = 64 * 2 ** 20;
const CSV = "text/csv; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";

/** `GET /v1/events` and `GET /v1/events/random`, served from the catalog view. */
export function eventRoutes(deps: EventRoutesDeps): OpenAPIHono<AppEnv> {
  const render = pageRenderer(deps);
  const pool = poolMemo(deps);
  const parse = eventsRequestParser();
  const app = openApiApp<AppEnv>();
  openapiSelfParsed(app, listEventsRoute, (c) => {
    const at = c.req.url.indexOf("?");
    const page = render(
      at === -1 ? "" : c.req.url.slice(at),
      () => parse(singleValuedQuery(c.req.queries(), c.req.url)),
    );
    if (page.csv) return sendBody(c, page.body, 200, CSV, { "X-Next-Cursor": page.nextCursor ?? "" });
    return sendBody(c, page.body, 200, JSON_TYPE);
  });
  return app.openapi(randomEventRoute, (c) => {
    const picked = pickFromPool(pool(), c.req.valid("query").seed);
    if (!picked) throw new ServiceError("pool_empty", "No live event is in the assignment pool");
    return c.json(picked.event, 200);
  });
}

type PageRenderer = (search: string, parse: () => EventsRequest) => RenderedPage;

/**
 * Renders pages, reusing one for the same snapshot and query string for `cacheMs` (bounded in
 * bytes). A query string is only ever cached after it parsed, so a hit skips parsing.
 */
function pageRenderer(deps: EventRoutesDeps): PageRenderer {
  if (deps.cacheMs === 0) return (_search, parse) => renderPage(deps, parse());
  const cache = new LRUCache<string, RenderedPage>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (page) => page.body.length * 2 + 256,
    ttl: deps.cacheMs,
    // Read the service's clock on every check: by default the LRU keeps one reading for 1 ms of
    // timers, so a clock moved between two requests with no timer run in between went unseen.
    ttlResolution: 0,
    perf: { now: deps.clock },
  });
  // The last page served, checked before the LRU: a burst of one query (a client polling, a
  // front page) skips the LRU's bookkeeping, a few percent of the cached page's rate.
  let last: { key: string; page: RenderedPage; until: number } | undefined;
  return (search, parse) => {
    const key = `${deps.catalog.current().id}${search}`;
    const now = deps.clock();
    if (last?.key === key && now < last.until) return last.page;
    let page = cache.get(key);
    if (!page) {
      page = renderPage(deps, parse());
      cache.set(key, page);
    }
    last = { key, page, until: now + cache.getRemainingTTL(key) };
    return page;
  };
}

/** The assignment pool, rebuilt at most once per second and per snapshot. */
function poolMemo(deps: EventRoutesDeps): () => IndexedEvent[] {
  let memo: { key: string; pool: IndexedEvent[] } | undefined;
  return () => {
    const now = deps.clock();
    const snapshot = deps.catalog.current();
    const key = `${snapshot.id}@${Math.floor(now / 1_000)}`;
    if (memo?.key !== key) memo = { key, pool: poolOf(snapshot, { nowMs: now, rules: deps.pool }) };
    return memo.pool;
  };
}

function renderPage(deps: EventRoutesDeps, { params, query, fingerprint }: EventsRequest): RenderedPage {
  const { snapshot, position } = startOf(deps, params.cursor, fingerprint);
  const page = runQuery(snapshot, query, { after: position, nowMs: deps.clock() });
  const nextCursor = page.next
    ? deps.cursors.encode<EventsCursor>(fingerprint, { s: snapshot.id, k: page.next.key, i: page.next.id })
    : null;
  if (params.format === "csv") {
    const events = page.items.map((item) => item.event);
    return { body: toCsv(EVENT_COLUMNS, events), nextCursor, csv: true };
  }
  const tail = `],"nextCursor":${JSON.stringify(nextCursor)},"meta":${metaJson(snapshot)}}`;
  return { body: spliced('{"items":[', page.items, tail), nextCursor, csv: false };
}

/** `head`, the items' JSON comma-separated, then `tail`: one string, copied once (one `join`). */
function spliced(head: string, items: readonly IndexedEvent[], tail: string): string {
  if (items.length === 0) return head + tail;
  const parts = items.map((item) => item.json);
  parts[0] = head + parts[0];
  parts[parts.length - 1] += tail;
  return parts.join(",");
}

/** The page's `meta` JSON, made once per snapshot. */
const metaJsons = new WeakMap<CatalogSnapshot, string>();
function metaJson(snapshot: CatalogSnapshot): string {
  let json = metaJsons.get(snapshot);
  if (json === undefined) {
    json = JSON.stringify({ computedAt: isoAt(snapshot.computedAtMs), scorerVersion: SCORER_VERSION });
    metaJsons.set(snapshot, json);
  }
  return json;
}

/** The snapshot to read (the one the cursor pinned, while retained) and where to resume. */
function startOf(
  deps: EventRoutesDeps,
  given: string | undefined,
  fingerprint: string,
): { snapshot: CatalogSnapshot; position: PagePosition | null } {
  if (!given) return { snapshot: deps.catalog.current(), position: null };
  const cursor = deps.cursors.decode<EventsCursor>(fingerprint, given);
  const snapshot = deps.catalog.pinned(cursor.s) ?? deps.catalog.current();
  return { snapshot, position: { key: cursor.k, id: cursor.i } };
}
