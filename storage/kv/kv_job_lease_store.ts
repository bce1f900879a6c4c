import type { JobLeaseStore } from "../job_lease_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";

interface Lease {
  holder: string;
  expiresAtMs: number;
}

/** Job leases in Deno KV, taken with a versionstamp check. */
export class KvJobLeaseStore implements JobLeaseStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async tryAcquire(job: string, holder: string, nowMs: number, ttlMs: number): Promise<boolean> {
    const current = await this.#kv.get<Lease>(["job_lease", job]);
    const lease = current.value;
    if (lease && lease.holder !== holder && lease.expiresAtMs > nowMs) return false;
    const next: Lease = { holder, expiresAtMs: nowMs + ttlMs };
    const result = await commitAtomic(() => this.#kv.atomic().check(current).set(["job_lease", job], next));
    return result.ok;
  }

  async release(job: string, holder: string): Promise<void> {
    const current = await this.#kv.get<Lease>(["job_lease", job]);
    if (current.value?.holder !== holder) return;
    await commitAtomic(() => this.#kv.atomic().check(current).delete(["job_lease", job]));
  }
}
