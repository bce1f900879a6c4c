import type { OpenAPIHono } from "@hono/zod-openapi";
import { isoAt } from "../../actors/kernel/mod.ts";
import type { CatalogSnapshot, IndexedEvent } from "../../actors/catalog/mod.ts";
import { pickFromPool, poolOf, type PoolRules } from "../../actors/catalog/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { AppEnv } from "../http/app_env.ts";
import { sendBody } from "../http/answer.ts";
import { toCsv } from "../http/csv.ts";
import { singleValuedQuery } from "../http/validation.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import { listEventsRoute, randomEventRoute } from "./events_api.ts";
import type { CatalogPage, CatalogPages, CatalogPagesDeps } from "./catalog_pages.ts";

export const SCORER_VERSION = "1.0.0";

export interface EventRoutesDeps extends CatalogPagesDeps {
  pool: PoolRules;
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

const CSV = "text/csv; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";

/**
 * `GET /v1/events` and `GET /v1/events/random`, served from the catalog view; the pages are read
 * through `pages`, which the `/events` web page shares.
 */
export function eventRoutes(deps: EventRoutesDeps, pages: CatalogPages): OpenAPIHono<AppEnv> {
  const pool = poolMemo(deps);
  const app = openApiApp<AppEnv>();
  openapiSelfParsed(app, listEventsRoute, (c) => {
    const at = c.req.url.indexOf("?");
    const entry = pages.read(
      at === -1 ? "" : c.req.url.slice(at),
      () => singleValuedQuery(c.req.queries(), c.req.url),
    );
    const page = entry.value;
    if (page.params.format === "csv") {
      const body = entry.body("csv") ?? entry.keep("csv", csvOf(page));
      return sendBody(c, body, 200, CSV, { "X-Next-Cursor": page.nextCursor ?? "" });
    }
    return sendBody(c, entry.body("json") ?? entry.keep("json", jsonOf(page)), 200, JSON_TYPE);
  });
  return app.openapi(randomEventRoute, (c) => {
    const picked = pickFromPool(pool(), c.req.valid("query").seed);
    if (!picked) throw new ServiceError("pool_empty", "No live event is in the assignment pool");
    return c.json(picked.event, 200);
  });
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

function csvOf(page: CatalogPage): string {
  return toCsv(EVENT_COLUMNS, page.items.map((item) => item.event));
}

/**
 * The page's JSON body, spliced from the events' JSON made once per event version. A string:
 * Deno.serve writes a string body on its fast path, measured about twice as fast as the same page
 * as bytes (docs/benchmarks.md).
 */
function jsonOf(page: CatalogPage): string {
  const tail = `],"nextCursor":${JSON.stringify(page.nextCursor)},"meta":${metaJson(page.snapshot)}}`;
  return spliced('{"items":[', page.items, tail);
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
