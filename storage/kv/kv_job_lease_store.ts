import type { AcquireOptions, Fence, JobLeaseStore, RenewOptions } from "../job_lease_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { currentFence, leaseKey, type StoredLease } from "./_job_lease_keys.ts";
import { LOST, retryConditional, WriteConflictError } from "../retry_conditional.ts";

/** Times a renewal re-reads the lease after its commit lost a race, before it reports the lease lost. */
const MAX_RENEW_ATTEMPTS = 5;

export interface KvJobLeaseStoreOptions {
  /**
   * The storage's clock. Deno KV has no server clock: this adapter always opens a local file
   * (FGW_DATA_DIR), so every process sharing it runs on the same host and reads the same wall
   * clock, which is therefore the storage's clock. Default: that wall clock.
   */
  now?: () => number;
}

/** Job leases in Deno KV: versionstamp-checked writes of one entry per job. */
export class KvJobLeaseStore implements JobLeaseStore {
  readonly #kv: Deno.Kv;
  readonly #now: () => number;

  constructor(kv: Deno.Kv, options: KvJobLeaseStoreOptions = {}) {
    this.#kv = kv;
    this.#now = options.now ?? (() => Date.now());
  }

  async tryAcquire(job: string, { holder, ttlMs }: AcquireOptions): Promise<{ token: number } | null> {
    const current = await this.#kv.get<StoredLease>(leaseKey(job));
    const lease = current.value;
    const now = this.#now();
    if (lease?.holder && lease.holder !== holder && lease.expiresAtMs > now) return null;
    const next: StoredLease = { holder, token: (lease?.token ?? 0) + 1, expiresAtMs: now + ttlMs };
    const result = await commitAtomic(() => this.#kv.atomic().check(current).set(leaseKey(job), next));
    return result.ok ? { token: next.token } : null;
  }

  async renew(job: string, { token, ttlMs }: RenewOptions): Promise<boolean> {
    try {
      return await retryConditional(async () => {
        const current = await currentFence(this.#kv, { job, token });
        if (!current) return false;
        const next: StoredLease = { ...current.value, expiresAtMs: this.#now() + ttlMs };
        const result = await commitAtomic(() => this.#kv.atomic().check(current).set(leaseKey(job), next));
        return result.ok ? true : LOST;
      }, { what: `renew the lease of ${job}`, attempts: MAX_RENEW_ATTEMPTS });
    } catch (error) {
      // A lease that keeps changing under the renewal is reported lost: the run stops.
      if (error instanceof WriteConflictError) return false;
      throw error;
    }
  }

  async release(job: string, { token }: { token: number }): Promise<void> {
    const current = await currentFence(this.#kv, { job, token });
    if (!current) return;
    const next: StoredLease = { holder: null, token, expiresAtMs: 0 };
    await commitAtomic(() => this.#kv.atomic().check(current).set(leaseKey(job), next));
  }

  async checkFence(fence: Fence): Promise<boolean> {
    return (await currentFence(this.#kv, fence)) !== null;
  }
}
