/**
 * The scorer's input (the `input` of `tests/scoring/golden/scoring-v1.json`, what `deno task score FILE`
 * reads), as a zod schema: shapes, then the cross-references the formulas rely on (unique ids, known
 * events, a resolved event's winning outcome among its outcomes).
 */
import { z } from "zod";

const instant = z.iso.datetime({ offset: true });
const price = z.number().min(0);
const uid = z.number().int().min(0).max(65535);

const outcomeSchema = z.object({ outcomeId: z.string().min(1), name: z.string() });

const eventSchema = z.object({
  id: z.string().min(1),
  outcomes: z.array(outcomeSchema).min(1),
  endDate: instant,
  outcomePricesAtAdmission: z.record(z.string(), price),
  resolution: z.object({
    resolutionStatus: z.enum(["unresolved", "resolved", "voided"]),
    winningOutcomeId: z.string().nullable(),
    resolvedAt: instant.nullable(),
  }),
});

/**
 * A stored prediction. A probability or confidence that is not a number arrives as null (as
 * `JSON.stringify` writes NaN): it is kept, and the validity rules mark it out of range.
 */
const predictionSchema = z.object({
  agentPredictionId: z.string().min(1),
  eventId: z.string().min(1),
  minerHotkey: z.string().min(1),
  minerUid: uid.nullable(),
  predictedAt: instant,
  predictedOutcomeId: z.string(),
  confidence: z.number().nullable(),
  outcomeProbabilities: z.record(z.string(), z.number().nullable()),
  outcomePricesAtPrediction: z.record(z.string(), price).nullable(),
  /** The agent's own flag, `prediction.executionMetadata.predictionIsInvalid`. */
  predictionIsInvalid: z.boolean(),
});

const registrationSchema = z.object({ hotkey: z.string().min(1), uid, firstSeenAt: instant });

const payoutSchema = z.object({
  minerAlphaPerDay: z.number().min(0),
  forecastingWeightShare: z.number().min(0).max(1),
  alphaUsd: z.number().min(0),
});

const shapeSchema = z.object({
  computedAt: instant,
  windowDays: z.number().positive(),
  events: z.array(eventSchema),
  predictions: z.array(predictionSchema),
  registrations: z.array(registrationSchema),
  payout: payoutSchema,
});

export type ScorerEvent = z.infer<typeof eventSchema>;
export type ScorerPrediction = z.infer<typeof predictionSchema>;
export type ScorerRegistration = z.infer<typeof registrationSchema>;
export type ScorerPayout = z.infer<typeof payoutSchema>;
export type ScorerInput = z.infer<typeof shapeSchema>;

type Issue = { path: (string | number)[]; message: string };

function duplicates(values: readonly (string | number)[], path: string, what: string): Issue[] {
  const seen = new Set<string | number>();
  const issues: Issue[] = [];
  values.forEach((value, index) => {
    if (seen.has(value)) issues.push({ path: [path, index], message: `duplicate ${what} ${value}` });
    seen.add(value);
  });
  return issues;
}

function eventIssues(event: ScorerEvent, index: number): Issue[] {
  const issues: Issue[] = [];
  const at = (...rest: (string | number)[]) => ["events", index, ...rest];
  const ids = event.outcomes.map((outcome) => outcome.outcomeId);
  if (new Set(ids).size !== ids.length) {
    issues.push({ path: at("outcomes"), message: "outcome ids must be unique" });
  }
  const prices = Object.values(event.outcomePricesAtAdmission);
  if (!(prices.reduce((sum, value) => sum + value, 0) > 0)) {
    issues.push({ path: at("outcomePricesAtAdmission"), message: "prices must sum to more than 0" });
  }
  const { resolutionStatus, winningOutcomeId, resolvedAt } = event.resolution;
  if (resolutionStatus === "resolved" && (winningOutcomeId === null || !ids.includes(winningOutcomeId))) {
    issues.push({
      path: at("resolution", "winningOutcomeId"),
      message: "a resolved event needs one of its outcome ids",
    });
  }
  if (resolutionStatus === "resolved" && resolvedAt === null) {
    issues.push({ path: at("resolution", "resolvedAt"), message: "a resolved event needs resolvedAt" });
  }
  return issues;
}

function crossIssues(input: ScorerInput): Issue[] {
  const eventIds = new Set(input.events.map((event) => event.id));
  const unknownEvents = input.predictions.flatMap((prediction, index) =>
    eventIds.has(prediction.eventId)
      ? []
      : [{ path: ["predictions", index, "eventId"], message: `unknown event ${prediction.eventId}` }]
  );
  return [
    ...input.events.flatMap(eventIssues),
    ...duplicates(input.events.map((event) => event.id), "events", "event id"),
    ...duplicates(input.predictions.map((p) => p.agentPredictionId), "predictions", "agentPredictionId"),
    ...unknownEvents,
    ...duplicates(input.registrations.map((r) => r.hotkey), "registrations", "hotkey"),
    ...duplicates(input.registrations.map((r) => r.uid), "registrations", "uid"),
  ];
}

/** The scorer input schema: shapes plus cross-references. */
export const scorerInputSchema = shapeSchema.superRefine((input, context) => {
  for (const issue of crossIssues(input)) context.addIssue({ code: "custom", ...issue });
});

/**
 * Parses a scorer input, or throws a TypeError whose message names every problem
 * (`Invalid scorer input: events.3.resolution.resolvedAt: a resolved event needs resolvedAt; …`).
 */
export function parseScorerInput(value: unknown): ScorerInput {
  const result = scorerInputSchema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    return path === "" ? issue.message : `${path}: ${issue.message}`;
  });
  throw new TypeError(`Invalid scorer input: ${problems.join("; ")}`);
}
