import { z } from "zod";
import { dayCount, isTimeZone, MAX_DAYS } from "../../actors/usage/mod.ts";
import { USAGE_DIMENSIONS } from "../../storage/usage_store.ts";
import type { ApiKeyAccess } from "../middleware/api_key_auth.ts";
import { defineRoute } from "../http/openapi.ts";
import { microString } from "../http/shared_schemas.ts";

const FIRST_DATE = "2000-01-01";
const LAST_DATE = "2999-12-31";

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date, YYYY-MM-DD")
  .refine(
    (value) =>
      !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && value >= FIRST_DATE && value <= LAST_DATE &&
      new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
    `must be a calendar date from ${FIRST_DATE} to ${LAST_DATE}`,
  );

/** The query of both usage routes: a range of local days of a zone. */
const daysFields = {
  from: date.meta({ description: "The first local day (YYYY-MM-DD).", example: "2026-11-01" }),
  to: date.meta({ description: `The last local day, inclusive; at most ${MAX_DAYS} days in all.` }),
  tz: z.string().refine(isTimeZone, "must be an IANA time zone name, such as Asia/Kolkata").default("UTC")
    .meta({
      description: "The IANA time zone whose days these are (default UTC).",
      example: "Asia/Kathmandu",
    }),
  format: z.enum(["json", "csv"]).default("json").meta({ description: "`csv`: the `rows`, as CSV." }),
};

/** `to` on or after `from`, and at most `MAX_DAYS` days. */
function refineRange(query: { from: string; to: string }, ctx: z.RefinementCtx): void {
  let days: number;
  try {
    days = dayCount(query);
  } catch {
    return; // a date already refused
  }
  if (days < 1) ctx.addIssue({ code: "custom", path: ["to"], message: "must not be before from" });
  else if (days > MAX_DAYS) {
    ctx.addIssue({ code: "custom", path: ["to"], message: `must be within ${MAX_DAYS} days of from` });
  }
}

export const usageQuerySchema = z.strictObject({
  ...daysFields,
  by: z.enum(USAGE_DIMENSIONS).default("key").meta({
    description: "What to break the spend down by: the API key, the model, the provider, the miner the " +
      "call was for, or the validator of a validator completion.",
  }),
}).superRefine(refineRange);

export const leaseQuerySchema = z.strictObject(daysFields).superRefine(refineRange);

const spend = {
  spendMicro: microString("Σ of the calls' costs."),
  calls: z.number().int().meta({ description: "Settled calls." }),
};
const value = z.string().nullable().meta({
  description: "The key id, model, provider or hotkey; null: none.",
});
const range = { from: z.string(), to: z.string(), tz: z.string() };

export const UsageReportSchema = z.object({
  ...range,
  by: z.enum(USAGE_DIMENSIONS),
  rows: z.array(z.object({ day: z.string(), value, ...spend })).meta({
    description: "Each local day and value with calls, by day then value (none last).",
  }),
  days: z.array(z.object({ day: z.string(), ...spend })).meta({ description: "Every day of the range." }),
  values: z.array(z.object({ value, ...spend })).meta({ description: "Each value over the range." }),
  totals: z.object(spend),
}).meta({ id: "UsageReport" });

const outcome = z.enum(["submitted", "expired", "live"]).meta({
  description: "The lease's prediction was submitted under the claim the calls were made for; the claim " +
    "ended without one; or it is still live.",
});
const hotkey = z.string().nullable();

export const LeaseSpendSchema = z.object({
  ...range,
  rows: z.array(z.object({
    minerHotkey: hotkey,
    validatorHotkey: hotkey,
    outcome,
    leases: z.number().int().meta({ description: "Lease claims the calls were made for." }),
    ...spend,
  })).meta({ description: "By miner, validator, outcome." }),
  miners: z.array(z.object({
    minerHotkey: hotkey,
    ...spend,
    byValidator: z.array(z.object({ validatorHotkey: hotkey, ...spend })),
    byOutcome: z.array(z.object({ outcome, leases: z.number().int(), ...spend })),
  })),
  totals: z.object(spend),
}).meta({ id: "LeaseSpend" });

function csvOr(schema: z.ZodType, description: string) {
  return {
    description,
    content: {
      "application/json": { schema },
      "text/csv": {
        schema: z.string().meta({ description: "A header row, then one line per row of `rows`." }),
      },
    },
  };
}

export function usageRoute(keys: ApiKeyAccess) {
  return defineRoute({
    method: "get",
    path: "/",
    tags: ["billing"],
    summary: "The organisation's spend and calls per local day, by key, model, provider, miner or validator",
    description: 'Calls count on the day of their settle (their ledger debit). See docs/billing.md, "Usage".',
    access: { apiKey: "billing:read", keys },
    request: { query: usageQuerySchema },
    responses: { 200: csvOr(UsageReportSchema, "The report (JSON, or its rows as CSV when `format=csv`).") },
  });
}

export function leaseSpendRoute(keys: ApiKeyAccess) {
  return defineRoute({
    method: "get",
    path: "/leases",
    tags: ["billing"],
    summary: "The organisation's miners' LLM spend by validator and by lease outcome",
    description: "The validator completions the organisation paid for, settled on these local days. " +
      'See docs/billing.md, "Usage".',
    access: { apiKey: "billing:read", keys },
    request: { query: leaseQuerySchema },
    responses: { 200: csvOr(LeaseSpendSchema, "The report (JSON, or its rows as CSV when `format=csv`).") },
  });
}
