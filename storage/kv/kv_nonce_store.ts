import type { ConsumedAndCounted, ConsumeOptions, CountedHit, NonceStore } from "../nonce_store.ts";
import { KvRateLimitStore } from "./kv_rate_limit_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";

/** Reads after a lost commit before giving up (each lost commit means another use committed). */
const MAX_ATTEMPTS = 8;

export interface KvNonceStoreOptions {
  /** The storage's clock: the host's wall clock, as for job leases (docs/runtime.md). */
  now?: () => number;
}

/**
 * Nonces in Deno KV: `["nonce", hotkey, nonce]` holds the expiry. A use is a versionstamp-checked
 * write over an absent or expired entry, so of racing uses on any handles exactly one commits;
 * KV deletes the entry itself after the ttl (`expireIn`), so there is nothing to purge.
 */
export class KvNonceStore implements NonceStore {
  readonly #kv: Deno.Kv;
  readonly #now: () => number;
  readonly #rates: KvRateLimitStore;

  constructor(kv: Deno.Kv, options: KvNonceStoreOptions = {}) {
    this.#kv = kv;
    this.#rates = new KvRateLimitStore(kv);
    this.#now = options.now ?? (() => Date.now());
  }

  async consume(hotkey: string, nonce: string, { ttlMs }: ConsumeOptions): Promise<boolean> {
    const key: Deno.KvKey = ["nonce", hotkey, nonce];
    const ttl = Math.max(1, Math.ceil(ttlMs));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const entry = await this.#kv.get<number>(key);
      const now = this.#now();
      if (entry.value !== null && entry.value > now) return false;
      const result = await commitAtomic(() =>
        this.#kv.atomic().check(entry).set(key, now + ttl, { expireIn: ttl })
      );
      if (result.ok) return true;
    }
    throw new Error(`Cannot consume nonce: ${hotkey} is too contended`);
  }

  /**
   * Deno KV has no statement to share: the nonce's use and the window's hit (the same keys as
   * `KvRateLimitStore`) run side by side, each atomic on its own.
   */
  async consumeCounting(
    hotkey: string,
    nonce: string,
    options: ConsumeOptions,
    hit: CountedHit,
  ): Promise<ConsumedAndCounted> {
    const { bucket, ...window } = hit;
    const [used, counted] = await Promise.allSettled([
      this.consume(hotkey, nonce, options),
      this.#rates.hit(bucket, window),
    ]);
    if (used.status === "rejected") throw used.reason;
    if (counted.status === "rejected") throw counted.reason;
    return { fresh: used.value, count: counted.value };
  }

  purgeExpired(): Promise<number> {
    return Promise.resolve(0);
  }
}
