import type { PeriodicJob } from "../runtime/mod.ts";
import type { RateLimitStore } from "../../storage/rate_limit_store.ts";

/**
 * Deletes ended rate-limit windows once a minute, so shared counters do not pile up (Postgres;
 * Deno KV expires them itself). Idempotent: a re-run deletes nothing new.
 */
export function rateLimitPurgeJob(store: RateLimitStore, intervalMs = 60_000): PeriodicJob {
  return {
    name: "rate_limit_purge",
    intervalMs: () => intervalMs,
    run: async (nowMs) => {
      await store.purgeEnded(nowMs);
    },
  };
}
