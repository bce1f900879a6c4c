import { z } from "zod";
import type { Context } from "hono";
import { MINER_EVENTS_LISTED } from "../../actors/scoring/mod.ts";
import { defineRoute, jsonResponse } from "../http/openapi.ts";
import { AgentVersionSchema } from "../http/shared_schemas.ts";
import { parseOrThrow, refuseQueryParameters } from "../http/validation.ts";
import { instant, queryHotkey } from "./_query_values.ts";
import { LeaderboardNeuronSchema } from "./leaderboard_api.ts";

/**
 * The path of `GET /v1/miners/{hotkey}` and of the `/miners/{hotkey}` page: a hotkey that is not an
 * SS58 address (checksum included) is 400 naming `hotkey`; a well-formed one the service does not
 * know is 404.
 */
export const minerPathSchema = z.strictObject({
  hotkey: queryHotkey.meta({ description: "The miner's hotkey (SS58, prefix 42)." }),
});

/** The hotkey of a miner route or page, validated as the route declares it; no query parameters. */
export function minerHotkeyOf(c: Context): string {
  refuseQueryParameters(c.req.url);
  return parseOrThrow(minerPathSchema, { hotkey: c.req.param("hotkey") }, "path").hotkey;
}

const IntervalSchema = z.object({
  mean: z.number(),
  low: z.number().meta({ description: "`mean − 1.96·sd/√n` (sample sd)." }),
  high: z.number().meta({ description: "`mean + 1.96·sd/√n`." }),
  n: z.number().int().meta({ description: "Valid scored events it is over." }),
}).meta({ id: "MeanInterval", description: "r6-rounded; null below 5 valid scored events." });

const probability = z.number().nullable();

export const MinerEventSchema = z.object({
  eventId: z.string(),
  question: z.string(),
  resolvedAt: instant,
  uid: z.number().int().meta({ description: "The uid the prediction was made under." }),
  predictedAt: instant.meta({ description: "The server's receipt time of the counted prediction." }),
  outcome: z.object({ outcomeId: z.string(), name: z.string() }).meta({
    description: "The outcome that won.",
  }),
  invalid: z.boolean(),
  pWin: probability.meta({ description: "The scorer's r6(p′ of the winner); null when invalid." }),
  pPredicted: probability.meta({
    description: "p′ of the predicted outcome (the reliability bins'); null when invalid.",
  }),
  called: z.boolean().nullable().meta({ description: "The predicted outcome won; null when invalid." }),
  brier: probability.meta({ description: "The scorer's Brier; null when invalid." }),
  marketPWin: probability.meta({
    description: "r6(m′ of the winner): the market prices at prediction (else at admission) ÷ their sum, " +
      "what `marketBrier` scores.",
  }),
  marketBrier: probability.meta({ description: "The scorer's market Brier; null when invalid." }),
}).meta({ id: "MinerEvent" });

export const MinerReportSchema = z.object({
  hotkey: z.string(),
  updatedAt: instant.meta({ description: "When this report was built (it is served for 60 s)." }),
  scorerVersion: z.string(),
  window: z.object({
    computedAt: instant.meta({ description: "The score table's computedAt." }),
    windowDays: z.number(),
    resolvedAfter: instant.meta({ description: "Events resolved after this (exclusive)…" }),
    resolvedUntil: instant.meta({ description: "…and until this (inclusive) are in the window." }),
  }),
  standing: z.object({
    rank: z.number().int().meta({ description: "1-based place on the leaderboard." }),
    count: z.number().int().meta({ description: "Forecasting miners on the leaderboard." }),
    neuron: LeaderboardNeuronSchema,
  }).nullable().meta({
    description: "Its leaderboard row (chain metrics, score-table row, payouts); null unless it is a " +
      "forecasting miner holding a uid.",
  }),
  intervals: z.object({
    validEvents: z.number().int(),
    meanBrier: IntervalSchema.nullable(),
    meanEdge: IntervalSchema.nullable().meta({ description: "Of `marketBrier − brier` per event." }),
  }),
  reliability: z.array(z.object({
    bin: z.number().int().meta({ description: "0..9: forecasts in [bin/10, (bin+1)/10); bin 9 includes 1." }),
    count: z.number().int(),
    meanForecast: probability,
    observedFrequency: probability.meta({ description: "Share whose predicted outcome won." }),
  })).meta({ description: "Ten bins of `pPredicted` over the valid scored events of the window." }),
  brierOverTime: z.array(z.object({
    weekStart: instant.meta({ description: "Monday 00:00 UTC." }),
    count: z.number().int(),
    meanBrier: z.number(),
    marketMeanBrier: z.number().meta({ description: "The market's mean Brier on the same events." }),
  })).meta({ description: "Weeks (by resolvedAt) with a valid scored event, oldest first." }),
  scoredEvents: z.object({
    total: z.number().int().meta({ description: "Scored events in the window." }),
    items: z.array(MinerEventSchema).meta({
      description: `The newest ${MINER_EVENTS_LISTED}, newest resolution first.`,
    }),
  }),
  agents: z.object({
    currentVersionId: z.string().nullable(),
    versions: z.array(AgentVersionSchema).meta({ description: "Newest first, without code." }),
  }),
}).meta({ id: "MinerReport" });

export const minerRoute = defineRoute({
  method: "get",
  path: "/{hotkey}",
  tags: ["scoring"],
  summary: "A miner's standing, scored events, figures and agent versions",
  description: "Its leaderboard row, its scored events in the score table's window with the market's " +
    "Brier beside its own, reliability bins, weekly Brier and agent versions. See docs/scoring.md.",
  access: "public",
  errors: ["invalid_request", "not_found"],
  request: { params: minerPathSchema },
  responses: { 200: jsonResponse(MinerReportSchema, "The miner's report, cached 60 s.") },
});
