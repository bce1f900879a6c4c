import { DAY_MS, HOUR_MS } from "../kernel/mod.ts";
import type { PeriodicJob } from "../runtime/mod.ts";
import { type BillingStore, utcDay } from "../../storage/billing_store.ts";

/** The scheduler's name of the job, and of its storage lease. */
export const SPEND_COUNTER_PURGE_JOB = "spend-cap-purge";

/** How often the job runs by default: a counter becomes purgeable once a day. */
const DEFAULT_INTERVAL_MS = HOUR_MS;

/** The times that bound how long a spend counter can still change (the service's settings). */
export interface SpendCounterTimes {
  /** `FGW_HOLD_TTL_MS`: a hold's lifetime, which the longest provider call must stay under. */
  holdTtlMs: number;
  /** `FGW_LEASE_MS`: how long a validator holds a lease. */
  leaseMs: number;
  /** `FGW_LEASE_GRACE_MS`: how long after its expiry the lease still takes completions. */
  leaseGraceMs: number;
}

/**
 * How long after the end of a counter's day the counter is purged (docs/billing.md, "Purge of
 * spend counters"): at least a day, so a counter is never purged before it is two days behind the
 * current UTC day; and at least what its last hold can still take: no new hold on a lease after
 * its lease and grace, every hold over after its TTL (a late settle comes within the longest
 * provider call, which the TTL exceeds). An hour more covers instances' clocks and a reserve that
 * lands a moment after its lease was checked.
 */
export function spendPurgeDelayMs(times: SpendCounterTimes): number {
  return Math.max(DAY_MS, times.holdTtlMs + times.leaseMs + times.leaseGraceMs) + HOUR_MS;
}

/** The first UTC day whose counters are kept at `nowMs`: the counters of earlier days are purged. */
export function spendPurgeBeforeDay(nowMs: number, times: SpendCounterTimes): string {
  return utcDay(nowMs - spendPurgeDelayMs(times));
}

export interface SpendCounterPurgeJobOptions extends SpendCounterTimes {
  billing: BillingStore;
  intervalMs?: number;
  /** Counters one storage step works through. */
  pageSize?: number;
  /** Storage steps one run makes at most; the next run goes on from where it stopped. */
  maxPages?: number;
}

/**
 * Deletes the spend counters of validator completions that can no longer matter: those dated
 * before `spendPurgeBeforeDay` that no hold still held names (`BillingStore.purgeSpendCounters`).
 * Each run makes at most `maxPages` steps of `pageSize` counters and keeps its position for the
 * next run, which starts over once a run has gone through every counter. Idempotent: a purged
 * counter is gone, and a later run deletes only what an earlier one would have. A run stops
 * between steps when its signal aborts.
 */
export function spendCounterPurgeJob(options: SpendCounterPurgeJobOptions): PeriodicJob {
  const { billing, pageSize = 500, maxPages = 20 } = options;
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  let after: string | null = null;
  return {
    name: SPEND_COUNTER_PURGE_JOB,
    intervalMs: () => intervalMs,
    run: async (nowMs, { signal }) => {
      const beforeDay = spendPurgeBeforeDay(nowMs, options);
      const today = utcDay(nowMs);
      for (let page = 0; page < maxPages && !signal.aborted; page++) {
        const step = await billing.purgeSpendCounters({
          beforeDay,
          today,
          limit: pageSize,
          ...(after === null ? {} : { after }),
        });
        after = step.next;
        if (after === null) break;
      }
    },
  };
}
