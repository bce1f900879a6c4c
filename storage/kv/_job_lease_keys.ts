import type { Fence } from "../job_lease_store.ts";

/**
 * A job's lease as stored. The entry is never deleted: a release only clears `holder`, so the
 * next grant still counts on from `token` and tokens are never reused.
 */
export interface StoredLease {
  holder: string | null;
  token: number;
  /** On the storage's clock (see `KvJobLeaseStore`). */
  expiresAtMs: number;
}

export function leaseKey(job: string): Deno.KvKey {
  return ["job_lease", job];
}

/**
 * The lease entry of `fence.job` when `fence.token` is its current grant, else null. A fenced write
 * checks the returned entry's versionstamp in its atomic operation, so it commits only if the lease
 * did not change since (a renewal changes it too: the caller reads again and retries).
 */
export async function currentFence(
  kv: Deno.Kv,
  fence: Fence,
): Promise<Deno.KvEntry<StoredLease> | null> {
  const entry = await kv.get<StoredLease>(leaseKey(fence.job));
  if (entry.versionstamp === null) return null;
  const lease = entry.value;
  return lease.holder !== null && lease.token === fence.token ? entry : null;
}
