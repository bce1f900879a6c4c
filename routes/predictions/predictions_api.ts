import { z } from "zod";
import { llmUsageFields } from "../http/shared_schemas.ts";
import type { ApiKeyAccess } from "../middleware/api_key_auth.ts";
import { defineRoute, jsonBody, jsonResponse, pathId } from "../http/openapi.ts";
import { EventSchema } from "../http/shared_schemas.ts";
import { EVENT_ID } from "../http/path_ids.ts";

const instant = z.string().meta({
  description: "ISO 8601 UTC with milliseconds",
  example: "2026-11-21T06:00:00.000Z",
});

/** Most event ids one query takes. */
export const MAX_QUERY_IDS = 100;

const probabilities = z.record(z.string(), z.number()).meta({
  description: "Probability (0..1) by outcomeId.",
});

const ForecastSchema = z.object({
  outcomeProbabilities: probabilities.meta({
    description: "r6(Σ w·p′ / Σ w) by outcomeId, in the event's order.",
  }),
  contributors: z.number().int().meta({ description: "Contributions with a weight above 0." }),
  method: z.literal("score_weighted_mean_v1"),
  updatedAt: instant.meta({
    description: "The latest contributor's predictedAt, or the scores' computedAt.",
  }),
}).meta({ id: "Forecast" });

const MinerRowSchema = z.object({
  uid: z.number().int(),
  hotkey: z.string(),
  weight: z.number().meta({ description: "The miner's score, or 1 each when every score is 0." }),
  predictedAt: instant,
  outcomeProbabilities: probabilities.optional().meta({
    description: "The miner's normalised prediction (r6); only once the event is settled.",
  }),
  ...llmUsageFields,
}).meta({ id: "ForecastMiner" });

const FreshRunSchema = z.object({
  status: z.enum(["queued", "already_queued", "refused"]),
  reason: z.enum(["not_in_pool", "no_eligible_agents", "org_hourly_limit"]).optional().meta({
    description: "Why it was refused (with `refused`).",
  }),
  round: z.number().int().optional().meta({
    description: "The round queued, or already queued within the hour.",
  }),
}).meta({ id: "FreshRun" });

export const CustomerPredictionSchema = z.object({
  eventId: z.string(),
  question: z.string(),
  outcomes: EventSchema.shape.outcomes,
  resolution: EventSchema.shape.resolution,
  market: z.object({
    outcomePrices: z.record(z.string(), z.number()).meta({
      description: "Current price (0..1) by outcomeId.",
    }),
    at: instant.meta({ description: "When the market source last showed these prices." }),
  }),
  forecast: ForecastSchema.nullable().meta({ description: "Null when no registered miner contributes." }),
  miners: z.array(MinerRowSchema).meta({
    description: "The top 10 contributions by weight (ties: lower uid).",
  }),
}).meta({ id: "CustomerPrediction" });

const QueryItemSchema = CustomerPredictionSchema.extend({
  freshRun: FreshRunSchema.optional().meta({ description: "Only with `requestFresh: true`." }),
}).meta({ id: "CustomerPredictionItem" });

const eventIdPath = z.object({
  eventId: pathId((value) => EVENT_ID.test(value), "Event not found", {
    description: "The event's id (`/v1/events` `id`).",
    pattern: EVENT_ID.source,
  }),
});

const eventIdValue = z.string().regex(EVENT_ID, "must be an event id (`/v1/events` `id`)");

export const predictionQueryBody = z.strictObject({
  eventIds: z.array(eventIdValue).min(1).max(MAX_QUERY_IDS).superRefine((ids, ctx) => {
    const seen = new Map<string, number>();
    for (const [index, id] of ids.entries()) {
      const first = seen.get(id);
      if (first === undefined) seen.set(id, index);
      else ctx.addIssue({ code: "custom", path: [index], message: `duplicate of eventIds.${first}` });
    }
  }).meta({ description: `1..${MAX_QUERY_IDS} distinct event ids.` }),
  requestFresh: z.boolean().optional().meta({
    description: "Queue a fresh run (the next round) of each found event in the assignment pool.",
  }),
});

export const historyQuerySchema = z.strictObject({
  interval: z.enum(["1h", "1d"]).default("1h").meta({
    description: "`1h`: every hourly point; `1d`: the last point of each UTC day. Default `1h`.",
  }),
  from: z.iso.datetime({ offset: true, error: "must be an ISO 8601 instant" }).optional().meta({
    description: "Start (inclusive); default `to` − 7 days.",
  }),
  to: z.iso.datetime({ offset: true, error: "must be an ISO 8601 instant" }).optional().meta({
    description: "End (inclusive); default now. At most 31 days after `from` for `1h`, 366 for `1d`.",
  }),
});

const HistorySchema = z.object({
  eventId: z.string(),
  interval: z.enum(["1h", "1d"]),
  points: z.array(z.object({
    at: instant.meta({ description: "When the snapshot was taken." }),
    forecast: probabilities.nullable().meta({
      description: "The consensus then; null when nobody contributed.",
    }),
    market: probabilities.meta({ description: "The market prices then." }),
    contributors: z.number().int(),
  })).meta({ description: "Oldest first." }),
}).meta({ id: "ForecastHistory" });

/** The three routes, behind `keys`. */
export function predictionRoutesApi(keys: ApiKeyAccess) {
  return {
    one: defineRoute({
      method: "get",
      path: "/{eventId}",
      tags: ["predictions"],
      summary: "The subnet's consensus forecast for one event",
      description:
        "The score-weighted consensus of the miners' latest predictions; the formula in docs/predictions.md.",
      access: { apiKey: "predictions:read", keys },
      request: { params: eventIdPath },
      responses: { 200: jsonResponse(CustomerPredictionSchema, "The event, its market and its forecast.") },
    }),
    query: defineRoute({
      method: "post",
      path: "/query",
      tags: ["predictions"],
      summary: "The forecasts of up to 100 events; optionally queue fresh runs",
      description: "Items in the order asked; unknown ids in `missing`. See docs/predictions.md.",
      access: { apiKey: "predictions:write", keys },
      request: { body: jsonBody(predictionQueryBody) },
      responses: {
        200: jsonResponse(
          z.object({
            items: z.array(QueryItemSchema),
            missing: z.array(z.string()).meta({ description: "Asked ids that name no event." }),
          }).meta({ id: "PredictionQueryResult" }),
          "The found events' predictions and the missing ids.",
        ),
      },
    }),
    history: defineRoute({
      method: "get",
      path: "/{eventId}/history",
      tags: ["predictions"],
      summary: "The forecast history of one event",
      description: 'Points of the hourly snapshot job, oldest first. See docs/predictions.md "History".',
      access: { apiKey: "history:read", keys },
      request: { params: eventIdPath, query: historyQuerySchema },
      responses: { 200: jsonResponse(HistorySchema, "The event's history points in the range.") },
    }),
  };
}
