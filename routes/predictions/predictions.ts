import type { OpenAPIHono } from "@hono/zod-openapi";
import { type Clock, ServiceError } from "../../actors/kernel/mod.ts";
import {
  type CustomerPrediction,
  type FreshRunOutcome,
  type FreshRunRequester,
  historyPoints,
  type PredictionReader,
} from "../../actors/predictions/mod.ts";
import type { ForecastHistoryStore } from "../../storage/forecast_history_store.ts";
import type { ApiKeyAccess, KeyEnv } from "../middleware/api_key_auth.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import { EVENT_ID } from "../http/path_ids.ts";
import { predictionRoutesApi } from "./predictions_api.ts";
import { historyRange } from "./history_range.ts";

export interface PredictionRoutesDeps {
  keys: ApiKeyAccess;
  reader: PredictionReader;
  history: ForecastHistoryStore;
  /** Queues fresh runs for `requestFresh`. */
  freshRuns: FreshRunRequester;
  clock: Clock;
}

function unknownEvent(eventId: string): ServiceError {
  return new ServiceError("not_found", `Event not found: ${eventId}`);
}

/** `items` with each one's fresh-run outcome (`outcomes` answers one per item). */
function withFreshRuns(items: CustomerPrediction[], outcomes: ReadonlyMap<string, FreshRunOutcome>) {
  return items.map((item) => {
    const outcome = outcomes.get(item.eventId);
    if (!outcome) throw new Error(`Cannot answer fresh run: no outcome for ${item.eventId}`);
    return { ...item, freshRun: outcome };
  });
}

/**
 * `GET /v1/predictions/{eventId}` (predictions:read), `POST /v1/predictions/query`
 * (predictions:write) and `GET /v1/predictions/{eventId}/history` (history:read), mounted at
 * `/v1/predictions`. See docs/predictions.md.
 */
export function predictionRoutes(deps: PredictionRoutesDeps): OpenAPIHono<KeyEnv> {
  const routes = predictionRoutesApi(deps.keys);
  const app = openApiApp<KeyEnv>();
  app.openapi(routes.query, async (c) => {
    const { eventIds, requestFresh } = c.req.valid("json");
    const { items, missing } = await deps.reader.read(eventIds);
    if (!requestFresh || items.length === 0) return c.json({ items, missing }, 200);
    const outcomes = await deps.freshRuns.request(c.get("apiKey").orgId, items.map((item) => item.eventId));
    return c.json({ items: withFreshRuns(items, outcomes), missing }, 200);
  });
  app.openapi(routes.history, async (c) => {
    const { eventId } = c.req.valid("param");
    const query = c.req.valid("query");
    const range = historyRange(query, deps.clock());
    const event = deps.reader.event(eventId);
    if (!event) throw unknownEvent(eventId);
    const stored = await deps.history.listPoints(eventId, range);
    const outcomeIds = event.outcomes.map((outcome) => outcome.outcomeId);
    return c.json({
      eventId,
      interval: query.interval,
      points: historyPoints(stored, query.interval, outcomeIds),
    }, 200);
  });
  // Self-parsed: the answer is the prediction's JSON as the reader wrote it once (docs/predictions.md
  // "Freshness"); the path rule is the declared one (EVENT_ID: anything else names no event, 404).
  openapiSelfParsed(app, routes.one, async (c) => {
    const eventId = c.req.param("eventId") ?? "";
    const json = EVENT_ID.test(eventId) ? await deps.reader.json(eventId) : undefined;
    if (json === undefined) throw unknownEvent(eventId);
    return c.body(json, 200, { "Content-Type": "application/json" });
  });
  return app;
}
