import type { PeriodicJob } from "../runtime/mod.ts";
import type { NonceStore } from "../../storage/nonce_store.ts";

/** The scheduler's name of the job, and of its storage lease. */
export const NONCE_PURGE_JOB = "nonce-purge";

/**
 * Deletes expired signature nonces once a minute, so used nonces do not pile up in PostgreSQL
 * (Deno KV expires them itself: its purge deletes nothing). Idempotent: a re-run deletes nothing
 * new. An expired nonce counts as unused anyway, so a late purge never lets a replay through.
 */
export function noncePurgeJob(store: NonceStore, intervalMs = 60_000): PeriodicJob {
  return {
    name: NONCE_PURGE_JOB,
    intervalMs: () => intervalMs,
    run: async () => {
      await store.purgeExpired();
    },
  };
}
