import type { ConsumedAndCounted, ConsumeOptions, CountedHit, NonceStore } from "../nonce_store.ts";
import { KvRateLimitStore } from "./kv_rate_limit_store.ts";
import { consumeNonce, nonceKey } from "./_kv_signed_use.ts";

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

  consume(hotkey: string, nonce: string, { ttlMs }: ConsumeOptions): Promise<boolean> {
    return consumeNonce(this.#kv, nonceKey(hotkey, nonce), ttlMs, this.#now);
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
