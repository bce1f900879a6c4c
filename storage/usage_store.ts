import type { AssignmentStatus } from "./assignment_record.ts";
import type { UsageDetails, UsageValue } from "./billing_store.ts";

/** What a settled call's spend is summed by (docs/billing.md, "Usage"). */
export const USAGE_DIMENSIONS = ["key", "model", "provider", "miner", "validator"] as const;

export type UsageDimension = typeof USAGE_DIMENSIONS[number];

/** The summary's time unit: a UTC quarter-hour, so that every zone's local day (offsets of :30 and :45 too) is a whole number of them. */
export const QUARTER_MS = 900_000;

/** The quarter-hour an instant falls in: quarter-hours since 1970-01-01T00:00Z. */
export function quarterOf(atMs: number): number {
  return Math.floor(atMs / QUARTER_MS);
}

/**
 * The value a usage record counts under in each dimension: its key, `metadata.model`,
 * `metadata.provider`, its miner, `metadata.validatorHotkey` (the validator of a validator
 * completion); "" when the record has none (or the metadata value is not a string). The
 * PostgreSQL trigger of migration 023 derives the same values.
 */
export function usageDimensionValues(
  usage: Pick<UsageDetails, "keyId" | "minerHotkey" | "metadata">,
): Record<UsageDimension, string> {
  const text = (value: UsageValue | undefined) => typeof value === "string" ? value : "";
  return {
    key: usage.keyId ?? "",
    model: text(usage.metadata.model),
    provider: text(usage.metadata.provider),
    miner: usage.minerHotkey ?? "",
    validator: text(usage.metadata.validatorHotkey),
  };
}

/** Spend and calls of one dimension value on one day of a `daily` query. */
export interface DayUsage {
  /** The day's index in the query's `dayStarts` (0 for the first day). */
  day: number;
  /** The dimension value; "" for the calls that had none. */
  value: string;
  spendMicro: bigint;
  calls: number;
}

/** Days given by their bounds: day i is the quarter-hours `[dayStarts[i], dayStarts[i + 1])`. */
export interface DailyQuery {
  dimension: UsageDimension;
  /** Quarter-hours (`quarterOf`), non-decreasing (a day a zone skipped is empty); one more than the days. */
  dayStarts: readonly number[];
}

/** A lease as it stands now (the assignment's current or last claim). */
export interface LeaseState {
  status: AssignmentStatus;
  /** The validator of the current or last claim; null before any. */
  validatorHotkey: string | null;
  leasedAtMs: number | null;
  expiresAtMs: number | null;
}

/** The validator completions an org paid for, of one claim of one lease. */
export interface LeaseCalls {
  minerHotkey: string | null;
  validatorHotkey: string | null;
  agentPredictionId: string;
  /** When the claim the calls were made under was leased (`metadata.leasedAtMs`); null in records made before it was kept. */
  leasedAtMs: number | null;
  calls: number;
  spendMicro: bigint;
  /** The lease now; null when the assignment is not stored. */
  lease: LeaseState | null;
}

/**
 * Port for the usage view's reads (read-only). The summary it reads is written by the billing
 * store in the same atomic write as each usage record (`BillingStore.commit`): per organisation,
 * dimension (`USAGE_DIMENSIONS`), dimension value (`usageDimensionValues`) and UTC quarter-hour
 * of the settle (the ledger debit's `atMs`), the Σ of the records' amounts and their count. So
 * over any range of whole quarter-hours the spend of each dimension sums to the ledger's debits.
 */
export interface UsageStore {
  /**
   * Σ spend and calls of the org's settled calls per day and value of `query.dimension`, for the
   * days `query.dayStarts` bounds (nothing outside them); only pairs with calls, in no order.
   */
  daily(orgId: string, query: DailyQuery): Promise<DayUsage[]>;
  /**
   * The org's validator completions settled in `[fromMs, toMs)`: summed per (miner, validator,
   * lease, claim), each with its lease's current state; in no order.
   */
  leaseCalls(orgId: string, range: { fromMs: number; toMs: number }): Promise<LeaseCalls[]>;
}
