import { z } from "zod";
import { HEADER, headerRef } from "../http/openapi_components.ts";
import { defineRoute, jsonResponse, pathId } from "../http/openapi.ts";
import { integerParameter } from "../http/validation.ts";
import { EventSchema, ScoredEventSchema } from "../http/shared_schemas.ts";
import { EVENT_ID } from "../http/path_ids.ts";
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

const prices = z.record(z.string(), z.number()).meta({
  description: "By outcomeId, in the event's outcome order.",
});

export const EventDetailSchema = z.object({
  event: EventSchema,
  history: z.object({
    interval: z.literal("1h"),
    from: instant,
    to: instant.meta({ description: "The resolution once the event is settled; now while it is open." }),
    market: z.array(z.object({ at: instant, prices })).meta({
      description: "The market's prices, one point per hour at most, oldest first.",
    }),
    consensus: z.array(z.object({
      at: instant,
      forecast: prices.nullable().meta({ description: "Null when no miner contributed." }),
      contributors: z.number().int(),
    })).nullable().meta({
      description: "The customer consensus at the same hours; null while the event is open.",
    }),
  }).meta({ description: "The 7 days before `to`." }),
  scored: ScoredEventSchema.nullable().meta({
    description:
      "Every miner's scored forecast (all rows); null while open, and until a scoring run scored it.",
  }),
  meta: z.object({ computedAt: instant, scorerVersion: z.string() }),
}).meta({ id: "EventDetail" });

/** `GET /v1/events/{eventId}`. */
export const eventDetailRoute = defineRoute({
  method: "get",
  path: "/{eventId}",
  tags: ["catalog"],
  summary: "One event with its market price history",
  description:
    "The event as `/v1/events` lists it, with its hourly market prices over the 7 days before its " +
    "resolution (or now); once it is settled, also the consensus history and the miners' scored forecasts. " +
    "See docs/events.md.",
  access: "public",
  request: {
    params: z.object({
      eventId: pathId((value) => EVENT_ID.test(value), "Event not found", {
        description: "The event's `id` (`polymarket-…`).",
        pattern: EVENT_ID.source,
      }),
    }),
  },
  responses: { 200: jsonResponse(EventDetailSchema, "The event and its history.") },
});
