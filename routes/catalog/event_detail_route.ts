import type { OpenAPIHono } from "@hono/zod-openapi";
import { isoAt } from "../../actors/kernel/mod.ts";
import { SCORER_VERSION } from "../../actors/scoring/mod.ts";
import type { AppEnv } from "../http/app_env.ts";
import { sendBody } from "../http/answer.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import type { Rendered } from "../http/rendered_cache.ts";
import type { EventDetail, EventDetails } from "./event_detail.ts";
import { eventDetailRoute } from "./events_api.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * `GET /v1/events/{eventId}`, mounted at `/v1/events` after the routes whose paths it would
 * shadow (`/random`, `/scored`).
 */
export function eventDetailRoutes(details: EventDetails): OpenAPIHono<AppEnv> {
  const app = openApiApp<AppEnv>();
  // Self-parsed: the body is spliced from the event's listing JSON; `read` applies the declared
  // path rule (EVENT_ID: anything else names no event, 404).
  openapiSelfParsed(app, eventDetailRoute, async (c) => {
    const entry = await details.read(c.req.param("eventId") ?? "");
    return sendBody(c, detailJson(entry), 200, JSON_TYPE);
  });
  return app;
}

/** The detail's JSON body, made once while the detail is cached; the event's JSON is its listing's. */
export function detailJson(entry: Rendered<EventDetail>): string {
  const made = entry.body("json");
  if (made !== undefined) return made;
  const { event, history, scored, computedAtMs } = entry.value;
  const meta = { computedAt: isoAt(computedAtMs), scorerVersion: SCORER_VERSION };
  return entry.keep("json", `{"event":${event.json},${JSON.stringify({ history, scored, meta }).slice(1)}`);
}
