import type { PeriodicJob } from "../../actors/runtime/mod.ts";
import type { JobLeaseStore } from "../../storage/job_lease_store.ts";

/**
 * Runs `job` once at `nowMs` as the scheduler would: under a fresh grant of its lease in `leases`
 * (so its fenced writes are accepted), with a signal that never aborts; the lease is released after.
 */
export async function runJobOnce(
  job: PeriodicJob,
  options: { leases: JobLeaseStore; nowMs: number },
): Promise<void> {
  const lease = await options.leases.tryAcquire(job.name, { holder: "test-runner", ttlMs: 60_000 });
  if (!lease) throw new Error(`Cannot run job: the lease of ${job.name} is held elsewhere`);
  const fence = { job: job.name, token: lease.token };
  try {
    await job.run(options.nowMs, { signal: new AbortController().signal, fence });
  } finally {
    await options.leases.release(job.name, fence);
  }
}
