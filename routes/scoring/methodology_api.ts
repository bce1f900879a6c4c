import { z } from "zod";
import { VALIDITY_REASONS } from "../../actors/scoring/mod.ts";
import { defineRoute, jsonResponse } from "../http/openapi.ts";
import { instant } from "./_query_values.ts";
import { MinerScoringSchema } from "./leaderboard_api.ts";

const NamedConstantSchema = z.object({
  name: z.string().meta({ description: "The exported name in the code.", example: "HALF_LIFE_DAYS" }),
  value: z.union([z.number(), z.string(), z.array(z.string())]),
  meaning: z.string(),
  file: z.string().meta({
    description: "The file that exports it.",
    example: "actors/scoring/miner_fold.ts",
  }),
}).meta({ id: "NamedConstant" });

const nullableNumber = z.number().nullable();

const ExampleEventSchema = z.object({
  id: z.string(),
  outcomes: z.array(z.object({ outcomeId: z.string(), name: z.string() })),
  endDate: instant,
  outcomePricesAtAdmission: z.record(z.string(), z.number()),
  resolution: z.object({
    resolutionStatus: z.enum(["unresolved", "resolved", "voided"]),
    winningOutcomeId: z.string().nullable(),
    resolvedAt: instant.nullable(),
  }),
});

const ExamplePredictionSchema = z.object({
  agentPredictionId: z.string(),
  eventId: z.string(),
  minerHotkey: z.string(),
  minerUid: z.number().int().nullable(),
  predictedAt: instant,
  predictedOutcomeId: z.string(),
  confidence: nullableNumber,
  outcomeProbabilities: z.record(z.string(), nullableNumber),
  outcomePricesAtPrediction: z.record(z.string(), z.number()).nullable(),
  predictionIsInvalid: z.boolean().meta({ description: "The agent's own flag." }),
});

/** The scorer's input (`deno task score FILE` reads the same shape). */
const ScorerInputSchema = z.object({
  computedAt: instant,
  windowDays: z.number(),
  events: z.array(ExampleEventSchema),
  predictions: z.array(ExamplePredictionSchema),
  registrations: z.array(z.object({ hotkey: z.string(), uid: z.number().int(), firstSeenAt: instant })),
  payout: z.object({
    minerAlphaPerDay: z.number(),
    forecastingWeightShare: z.number(),
    alphaUsd: z.number(),
  }),
}).meta({ id: "ScorerInput" });

const ScorerOutputSchema = z.object({
  predictions: z.record(
    z.string(),
    z.object({
      isValid: z.boolean(),
      reasons: z.array(z.enum(VALIDITY_REASONS)),
      pWin: nullableNumber,
      brier: nullableNumber,
      called: z.boolean().nullable(),
      marketBrier: nullableNumber,
    }),
  ).meta({ description: "By agentPredictionId." }),
  events: z.record(
    z.string(),
    z.object({
      stats: z.object({
        scored: z.number().int(),
        valid: z.number().int(),
        meanBrier: nullableNumber,
        calledRate: nullableNumber,
        bestUid: z.number().int().nullable(),
      }),
      marketPWinAtAdmission: z.number(),
      minerOrder: z.array(z.number().int()).meta({ description: "Uids in the order rows are shown." }),
    }),
  ).meta({ description: "By event id: every resolved event." }),
  miners: z.record(
    z.string(),
    z.object({
      uid: z.number().int(),
      scoring: MinerScoringSchema,
      forecastingIncentive: z.number(),
      forecastingAlphaPerDay: z.number(),
      forecastingUsdPerDay: z.number(),
    }),
  ).meta({ description: "By hotkey." }),
  forecastingBudgetAlphaPerDay: z.number(),
}).meta({ id: "ScorerOutput" });

const MeanIntervalSchema = z.object({
  mean: z.number(),
  low: z.number(),
  high: z.number(),
  n: z.number().int(),
}).nullable().meta({
  description: "mean ± 1.96·sd/√n; null for fewer than 5 values. Not part of scorer v1.",
});

export const MethodologySchema = z.object({
  scorerVersion: z.string(),
  constants: z.array(NamedConstantSchema).meta({ description: "Scorer v1's exported constants." }),
  pageFigureConstants: z.array(NamedConstantSchema).meta({
    description: "Constants of the figures the pages add, not part of scorer v1.",
  }),
  settings: z.object({
    windowDays: z.number().meta({ description: "`FGW_SCORING_WINDOW_DAYS`." }),
    scoringIntervalMs: z.number().int().meta({ description: "`FGW_SCORING_INTERVAL_MS`." }),
    forecastingWeightShare: z.number().meta({ description: "`FGW_FORECASTING_WEIGHT_SHARE`." }),
  }).meta({ description: "This deployment's settings that change the scorer's inputs." }),
  example: z.object({
    input: ScorerInputSchema,
    questions: z.record(z.string(), z.string()).meta({ description: "By event id." }),
    output: ScorerOutputSchema,
    events: z.record(z.string(), z.object({ inWindow: z.boolean(), weight: nullableNumber })).meta({
      description: "By event id: resolved inside the window, and then its row weight r6(w) at computedAt.",
    }),
    counted: z.array(z.string()).meta({ description: "The agentPredictionIds the latest rule counts." }),
    intervals: z.record(z.string(), z.object({ brier: MeanIntervalSchema, edge: MeanIntervalSchema })).meta({
      description: "By hotkey, over its valid rows in the window. Not part of scorer v1.",
    }),
  }).meta({ description: "A fixed input scored by scorer v1 when the service starts serving it." }),
}).meta({ id: "Methodology" });

export const methodologyRoute = defineRoute({
  method: "get",
  path: "/methodology",
  tags: ["scoring"],
  summary: "How miners are scored: constants, settings and a worked example",
  description: "Scorer v1's constants, this deployment's scoring settings and a worked example computed by " +
    "the scorer, exactly what `/methodology` shows. See docs/scoring.md.",
  access: "public",
  responses: { 200: jsonResponse(MethodologySchema, "The methodology.") },
});
