/**
 * The usage summary in Deno KV (`UsageStore`), written by the billing commit with each usage
 * record, in the same atomic (private to storage/kv).
 */
import type { UsageRecord } from "../billing_store.ts";
import { quarterOf, type UsageDimension, usageDimensionValues } from "../usage_store.ts";

/** What a bucket counts: the Σ of the amounts, or the calls. Both are `Deno.KvU64`. */
export type BucketPart = "calls" | "spend";

/** A validator completion, under its org and settle time (`UsageStore.leaseCalls`). */
export interface LeaseCallEntry {
  minerHotkey: string | null;
  validatorHotkey: string | null;
  agentPredictionId: string;
  leasedAtMs: number | null;
  amountMicro: bigint;
}

export const usageKeys = {
  /** One part of a bucket: the org, dimension, quarter-hour and value (`usageDimensionValues`). */
  bucket: (orgId: string, dimension: UsageDimension, quarter: number, value: string, part: BucketPart) =>
    ["usage_bucket", orgId, dimension, quarter, value, part] as Deno.KvKey,
  /** Where a dimension's buckets from `quarter` on start (the list's start or end). */
  bucketsFrom: (orgId: string, dimension: UsageDimension, quarter: number) =>
    ["usage_bucket", orgId, dimension, quarter] as Deno.KvKey,
  leaseCall: (orgId: string, atMs: number, seq: number) =>
    ["usage_lease_call", orgId, atMs, seq] as Deno.KvKey,
  leaseCallsFrom: (orgId: string, atMs: number) => ["usage_lease_call", orgId, atMs] as Deno.KvKey,
  /** Set once every usage record stored before the summary existed is in it (`backfillUsageSummary`). */
  backfilled: ["meta", "usage_summary_v1"] as Deno.KvKey,
};

/** Where the summary's writes go: sums are blind adds to a `Deno.KvU64` (no read, no conflict). */
export interface SummaryWrites {
  set(key: Deno.KvKey, value: unknown): unknown;
  sum(key: Deno.KvKey, value: bigint): unknown;
}

/** Adds `record` to its bucket in each dimension, and a validator completion to the lease calls. */
export function writeUsageSummary(op: SummaryWrites, orgId: string, record: UsageRecord): void {
  const quarter = quarterOf(record.atMs);
  const values = usageDimensionValues(record);
  for (const [dimension, value] of Object.entries(values) as [UsageDimension, string][]) {
    op.sum(usageKeys.bucket(orgId, dimension, quarter, value, "spend"), record.amountMicro);
    op.sum(usageKeys.bucket(orgId, dimension, quarter, value, "calls"), 1n);
  }
  const entry = leaseCallOf(record);
  if (entry) op.set(usageKeys.leaseCall(orgId, record.atMs, record.seq), entry);
}

/** The lease call of a validator completion's record (one naming `metadata.agentPredictionId`), else null. */
export function leaseCallOf(record: UsageRecord): LeaseCallEntry | null {
  const { agentPredictionId, validatorHotkey, leasedAtMs } = record.metadata;
  if (typeof agentPredictionId !== "string") return null;
  return {
    minerHotkey: record.minerHotkey,
    validatorHotkey: typeof validatorHotkey === "string" ? validatorHotkey : null,
    agentPredictionId,
    leasedAtMs: typeof leasedAtMs === "number" ? Math.floor(leasedAtMs) : null,
    amountMicro: record.amountMicro,
  };
}
