import { z } from "zod";
import { defineRoute, jsonResponse } from "../http/openapi.ts";
import { llmUsageFields } from "../http/shared_schemas.ts";
import type { SignatureAccess } from "../middleware/signature_auth.ts";
import { ValidatorSignatureHeaders } from "../http/shared_schemas.ts";
import { instant, queryHotkey, queryIntegerOr } from "./_query_values.ts";

const byOutcome = z.record(z.string(), z.number().nullable());

export const TraceSummarySchema = z.object({
  schemaVersion: z.string().nullable(),
  bytes: z.number().int().meta({ description: "UTF-8 bytes of the stored trace's JSON." }),
  steps: z.number().int().meta({ description: "Length of `trace.steps`." }),
  toolNames: z.array(z.string()).meta({
    description:
      "Distinct tool names of the steps (`[A-Za-z0-9_.:-]`, 1..64 characters), sorted, at most 32.",
  }),
}).meta({
  id: "TraceSummary",
  description: "Sizes, a step count and tool names; never the trace's content.",
});

export const ScoredPredictionRowSchema = z.object({
  agentPredictionId: z.string(),
  minerHotkey: z.string(),
  minerUid: z.number().int(),
  marketId: z.string().meta({ description: "The service's event id." }),
  sourceMarketId: z.string(),
  predictedAt: instant.meta({ description: "The server's receipt time." }),
  minerLastPredictedAt: instant.meta({
    description: "The latest predictedAt of this (hotkey, uid) on this event: the row that counts.",
  }),
  predictedOutcomeId: z.string(),
  confidence: z.number().nullable(),
  outcomeProbabilities: byOutcome,
  outcomePricesAtPrediction: z.record(z.string(), z.number()).meta({
    description: "The event's prices handed out with the lease.",
  }),
  resolvedOutcomeId: z.string().nullable(),
  finalOutcomePrices: z.record(z.string(), z.number()).nullable(),
  resolvedAt: instant,
  predictionIsInvalid: z.boolean().meta({ description: "The verdict at scoring." }),
  predictionInvalidReason: z.string().nullable(),
  predictionValidation: z.object({
    isValid: z.boolean(),
    reasons: z.array(z.string()),
    rawObserved: z.object({ prediction: z.string(), confidence: z.string() }).nullable(),
  }),
  scoredAt: instant,
  resolutionStatus: z.string(),
  validatorHotkey: z.string().meta({ description: "The validator that submitted it." }),
  ...llmUsageFields,
  traceSummary: TraceSummarySchema.optional(),
}).meta({ id: "ScoredPredictionRow" });

export const ScoredPredictionPage = z.object({
  items: z.array(ScoredPredictionRowSchema),
  nextCursor: z.string().nullable(),
}).meta({ id: "ScoredPredictionPage" });

export const scoredPredictionsQuerySchema = z.strictObject({
  includeTraceSummary: z.enum(["0", "1"], { error: "must be 0 or 1" }).default("0").transform((v) =>
    v === "1"
  )
    .meta({ description: "`1` adds each row's sanitized trace summary." }),
  minerHotkey: queryHotkey.optional().meta({
    description: "One miner, under its current uid only; none when it is not registered.",
  }),
  cursor: z.string().min(1).max(2_048).optional().meta({
    description: "`nextCursor` of the previous page, with the same other parameters.",
  }),
  limit: queryIntegerOr(1, 200, 50).meta({
    description: "1..200, default 50.",
  }),
  days: queryIntegerOr(1, 365, 30).meta({
    description: "Rolling window by resolvedAt, 1..365 days.",
  }),
});

/** `GET /v1/validators/scored-predictions`. */
export function scoredPredictionsRoute(signature: SignatureAccess) {
  return defineRoute({
    method: "get",
    path: "/scored-predictions",
    tags: ["validators"],
    summary: "Scored predictions of the window, with the inputs to recompute the scores",
    description: "Every stored prediction of resolved, scored events (invalid and superseded ones too), " +
      "newest resolution first, for currently registered (hotkey, uid) pairs only; an empty list until the " +
      "metagraph has synced. See docs/scoring.md.",
    access: { signature },
    request: { headers: ValidatorSignatureHeaders, query: scoredPredictionsQuerySchema },
    responses: { 200: jsonResponse(ScoredPredictionPage, "A page of scored prediction rows.") },
  });
}
