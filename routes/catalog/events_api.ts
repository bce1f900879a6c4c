import { z } from "zod";
import { HEADER, headerRef } from "../http/openapi_components.ts";
import { defineRoute, jsonResponse } from "../http/openapi.ts";
import { integerParameter } from "../http/validation.ts";
import { EventSchema } from "../http/shared_schemas.ts";
import { eventsQuerySchema } from "./events_query.ts";

const instant = z.string().meta({
  description: "ISO 8601 UTC with milliseconds",
  example: "2026-11-21T06:00:00.000Z",
});
export const EventPage = z.object({
  items: z.array(EventSchema),
  nextCursor: z.string().nullable().meta({
    description: "Pass back as `cursor` for the next page; null on the last.",
  }),
  meta: z.object({ computedAt: instant, scorerVersion: z.string() }),
}).meta({ id: "EventPage" });

/**
 * `GET /v1/events`. Its handler parses the query itself with `eventsQuerySchema` behind its page
 * cache (a cached page parses nothing), so it is mounted with `openapiSelfParsed`.
 */
export const listEventsRoute = defineRoute({
  method: "get",
  path: "/",
  tags: ["catalog"],
  summary: "List events of the catalog",
  description: "Live events by default, filtered and sorted as the parameters say; keyset pages. " +
    "`format=csv` answers CSV with the next cursor in `X-Next-Cursor`. See docs/events.md.",
  access: "public",
  request: { query: eventsQuerySchema },
  responses: {
    200: {
      description: "A page of events (JSON, or CSV when `format=csv`).",
      headers: { [HEADER.nextCursor]: headerRef(HEADER.nextCursor) },
      content: {
        "application/json": { schema: EventPage },
        "text/csv": { schema: z.string().meta({ description: "A header row, then one row per event." }) },
      },
    },
  },
});

const SEED_PROBLEM = "must be a non-negative integer of at most 15 digits";

/** Query of `GET /v1/events/random`. */
export const randomQuerySchema = z.strictObject({
  seed: z.string().regex(/^\d{1,15}$/, SEED_PROBLEM).transform(Number)
    .meta(integerParameter(0, 999_999_999_999_999)).optional()
    .meta({ description: "Picks the same event for the same seed and pool." }),
});

export const randomEventRoute = defineRoute({
  method: "get",
  path: "/random",
  tags: ["catalog"],
  summary: "One event from the assignment pool",
  access: "public",
  errors: ["pool_empty"],
  request: { query: randomQuerySchema },
  responses: { 200: jsonResponse(EventSchema, "An event of the pool.") },
});
