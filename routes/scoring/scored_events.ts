import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/app_env.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import { singleValuedQuery } from "../http/validation.ts";
import { scoredEventsRoute } from "./scored_events_api.ts";
import type { Rendered } from "../http/rendered_cache.ts";
import type { ScoredPage, ScoredPages } from "./scored_pages.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/** `GET /v1/events/scored`, mounted at `/v1/events`; its pages are read through `pages`. */
export function scoredEventRoutes(pages: ScoredPages): OpenAPIHono<AppEnv> {
  const app = openApiApp<AppEnv>();
  // A request without a query string is the default query: its cached page is answered at once,
  // without parsing and without a promise (Hono's direct path), as `/v1/events` does.
  openapiSelfParsed(app, scoredEventsRoute, (c) => {
    const cached = c.req.url.includes("?") ? undefined : pages.cachedDefault();
    if (cached) return c.body(jsonOf(cached), 200, { "Content-Type": JSON_TYPE });
    return pages.read(singleValuedQuery(c.req.queries(), c.req.url))
      .then((entry) => c.body(jsonOf(entry), 200, { "Content-Type": JSON_TYPE }));
  });
  return app;
}

/** The page's JSON body, made once while the page is cached. */
function jsonOf(entry: Rendered<ScoredPage>): string {
  const { items, nextCursor, meta } = entry.value;
  return entry.body("json") ?? entry.keep("json", JSON.stringify({ items, nextCursor, meta }));
}
