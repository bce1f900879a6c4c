/** A job "sync" run by schedulers of several instances, and the record of its runs (scheduler tests). */
import { ManualClock } from "../../actors/kernel/mod.ts";
import { type JobRun, type PeriodicJob, Scheduler } from "../../actors/runtime/mod.ts";
import type { JobLeaseStore } from "../../storage/job_lease_store.ts";
import type { Storage } from "../../storage/storage.ts";

export const START_MS = Date.UTC(2026, 10, 20, 12);
export const INTERVAL_MS = 10_000;
/** The scheduler's lease time for INTERVAL_MS: twice the interval, at least 30 s. */
export const LEASE_MS = Math.max(2 * INTERVAL_MS, 30_000);
export const STEP_MS = 1_000;
/** A lease short enough to outlive on the real clock, which the storage measures leases by. */
export const SHORT_LEASE_MS = 20;

/** Every run of the job "sync", by any instance: who ran it, and when (ms after START_MS). */
export class RunLedger {
  readonly runs: string[] = [];
  /** The fencing token of each run, in the order of `runs`. */
  readonly tokens: number[] = [];
  active = 0;
  maxActive = 0;

  /** The job as one instance runs it; `body` may throw or block. */
  job(instance: string, body: (run: JobRun) => Promise<void> = () => yieldToLoop()): PeriodicJob {
    return {
      name: "sync",
      intervalMs: () => INTERVAL_MS,
      run: async (nowMs, run) => {
        this.active++;
        this.maxActive = Math.max(this.maxActive, this.active);
        this.runs.push(`${instance}@${(nowMs - START_MS) / 1000}s`);
        this.tokens.push(run.fence.token);
        try {
          await body(run);
        } finally {
          this.active--;
        }
      },
    };
  }
}

/** Yields to the event loop once, so concurrent ticks really interleave with storage calls. */
function yieldToLoop(): Promise<void> {
  return sleep(0);
}

/** Waits on the real clock (the storage's clock), never on the scheduler's. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface Instance {
  scheduler: Scheduler;
  errors: Array<[string, unknown]>;
}

export function instance(
  storage: Storage,
  clock: ManualClock,
  holder: string,
  job: PeriodicJob,
  options: { leases?: JobLeaseStore; leaseMs?: number } = {},
): Instance {
  const errors: Array<[string, unknown]> = [];
  const scheduler = new Scheduler({
    leases: options.leases ?? storage.jobLeases,
    clock: clock.now,
    holder,
    jobs: [job],
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    onError: (name, error) => errors.push([name, error]),
  });
  return { scheduler, errors };
}

export function twoInstances(storage: Storage, other: Storage, ledger: RunLedger) {
  const clock = new ManualClock(START_MS);
  const a = instance(storage, clock, "instance-a", ledger.job("a"));
  const b = instance(other, clock, "instance-b", ledger.job("b"));
  return { clock, a, b };
}

/** Ticks the given instances (twice each, concurrently) at every step until `untilMs` after start. */
export async function runUntil(clock: ManualClock, untilMs: number, instances: Instance[]): Promise<void> {
  while (clock.now() - START_MS <= untilMs) {
    await Promise.all(instances.flatMap(({ scheduler }) => [scheduler.tick(), scheduler.tick()]));
    clock.advance(STEP_MS);
  }
}
