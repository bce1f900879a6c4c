import type { OpenAPIHono } from "@hono/zod-openapi";
import { type Clock, isoAt } from "../../actors/kernel/mod.ts";
import {
  type MinerFilter,
  type ScoredEventsDeps,
  scoredEventsPage,
  SCORER_VERSION,
} from "../../actors/scoring/mod.ts";
import type { MetagraphView } from "../../actors/validators/mod.ts";
import type { ScoredEventPosition } from "../../storage/score_store.ts";
import type { AppEnv } from "../http/app_env.ts";
import { CursorCodec } from "../http/cursor.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import { parseOrThrow, singleValuedQuery } from "../http/validation.ts";
import { type ScoredEventsParams, scoredEventsQuerySchema, scoredEventsRoute } from "./scored_events_api.ts";

/** How long the default query's page is served (docs/scoring.md, "GET /v1/events/scored"). */
export const DEFAULT_PAGE_CACHE_MS = 60_000;
const JSON_TYPE = "application/json; charset=utf-8";

export interface ScoredEventRoutesDeps extends ScoredEventsDeps {
  /** This instance's metagraph view: which hotkey holds a uid now. */
  metagraph: MetagraphView;
  cursors: CursorCodec;
  clock: Clock;
}

interface Cursor {
  r: number;
  e: string;
}

/** `GET /v1/events/scored`, mounted at `/v1/events`. */
export function scoredEventRoutes(deps: ScoredEventRoutesDeps): OpenAPIHono<AppEnv> {
  let cached: { atMs: number; body: string } | null = null;
  const app = openApiApp<AppEnv>();
  // A request without a query string is the default query: its cached page is answered at once,
  // without parsing and without a promise (Hono's direct path), as `/v1/events` does.
  openapiSelfParsed(app, scoredEventsRoute, (c) => {
    const now = deps.clock();
    if (cached && now - cached.atMs < DEFAULT_PAGE_CACHE_MS && !c.req.url.includes("?")) {
      return c.body(cached.body, 200, { "Content-Type": JSON_TYPE });
    }
    return (async () => {
      const params = parseOrThrow(
        scoredEventsQuerySchema,
        singleValuedQuery(c.req.queries(), c.req.url),
        "query parameters",
      );
      const isDefault = params.limit === 10 && params.miners === 10 && params.uid === undefined &&
        params.minerHotkey === undefined && params.cursor === undefined;
      if (isDefault && cached && now - cached.atMs < DEFAULT_PAGE_CACHE_MS) {
        return c.body(cached.body, 200, { "Content-Type": JSON_TYPE });
      }
      const body = await renderPage(deps, params, now);
      if (isDefault) cached = { atMs: now, body };
      return c.body(body, 200, { "Content-Type": JSON_TYPE });
    })();
  });
  return app;
}

/** The miner a query names: `minerHotkey`, or the hotkey holding `uid` now (null: nobody does). */
function minerOf(deps: ScoredEventRoutesDeps, params: ScoredEventsParams): MinerFilter | null | undefined {
  if (params.minerHotkey !== undefined) return { hotkey: params.minerHotkey };
  if (params.uid === undefined) return undefined;
  const neuron = deps.metagraph.metagraph?.neurons.find((n) => n.uid === params.uid);
  return neuron ? { hotkey: neuron.hotkey, uid: neuron.uid } : null;
}

async function renderPage(deps: ScoredEventRoutesDeps, params: ScoredEventsParams, nowMs: number) {
  const meta = { computedAt: isoAt(nowMs), scorerVersion: SCORER_VERSION };
  const miner = minerOf(deps, params);
  const fingerprint = CursorCodec.fingerprint({
    miners: params.miners,
    limit: params.limit,
    uid: params.uid ?? null,
    minerHotkey: params.minerHotkey ?? null,
    // A uid's cursor is bound to the hotkey holding it: after a re-registration it is refused.
    holder: params.uid === undefined ? null : miner?.hotkey ?? null,
  });
  const after = params.cursor === undefined
    ? undefined
    : positionOf(deps.cursors.decode<Cursor>(fingerprint, params.cursor));
  if (miner === null) return JSON.stringify({ items: [], nextCursor: null, meta });
  const page = await scoredEventsPage(deps, {
    limit: params.limit,
    miners: params.miners,
    ...(miner ? { miner } : {}),
    ...(after ? { after } : {}),
  });
  const nextCursor = page.next
    ? deps.cursors.encode<Cursor>(fingerprint, { r: page.next.resolvedAtMs, e: page.next.eventId })
    : null;
  return JSON.stringify({ items: page.items, nextCursor, meta });
}

function positionOf(cursor: Cursor): ScoredEventPosition {
  return { resolvedAtMs: cursor.r, eventId: cursor.e };
}
