import type { WindowHits } from "./rate_limit_store.ts";

export interface ConsumeOptions {
  /** How long the nonce stays used, on the storage's clock (at least twice the signature window). */
  ttlMs: number;
}

/** One hit on a rate-limit window, counted in the same step as a nonce's use. */
export interface CountedHit extends WindowHits {
  bucket: string;
}

/** What `consumeCounting` did: whether the nonce was fresh, and the window's count including the hit. */
export interface ConsumedAndCounted {
  fresh: boolean;
  count: number;
}

/**
 * A signed request's nonce use and rate hit (steps 7–8 of docs/signatures.md), handed to the store that makes
 * the change the request authorizes, so that both commit in the same atomic step (see
 * `AssignmentStore.claim` and `submit`). The hit is counted also for a replay, as `consumeCounting`
 * does; the change goes ahead only when the use admits it (`useAdmits`).
 */
export interface SignedUse {
  hotkey: string;
  nonce: string;
  /** How long the nonce stays used, on the storage's clock. */
  ttlMs: number;
  hit: CountedHit;
  /** The most the window may count, this hit included, for the change to go ahead. */
  maxCount: number;
}

/** Whether a signed use as it was made lets its change go ahead: a fresh nonce, a count within the rate. */
export function useAdmits(use: SignedUse, made: ConsumedAndCounted): boolean {
  return made.fresh && made.count <= use.maxCount;
}

/**
 * Single-use signature nonces per hotkey, shared by every service instance. Expiry is on the
 * storage's clock (PostgreSQL: the server's; Deno KV: the host's, see docs/runtime.md); an expired
 * nonce counts as unused, which is safe because a request old enough for its nonce to have
 * expired fails the signature's timestamp window first.
 */
export interface NonceStore {
  /**
   * Marks `nonce` used by `hotkey` for `ttlMs`, atomically: true for the first use, false while an
   * earlier use has not expired (a replay), also when the uses race on different instances.
   */
  consume(hotkey: string, nonce: string, options: ConsumeOptions): Promise<boolean>;
  /**
   * `consume`, and `RateLimitStore.hit` of the same storage for `hit` (one hit, counted also when
   * the nonce is a replay), in one storage step where the adapter can (PostgreSQL: one statement,
   * one commit). Each part keeps its own guarantees; the signed-request check of a validator uses it.
   */
  consumeCounting(
    hotkey: string,
    nonce: string,
    options: ConsumeOptions,
    hit: CountedHit,
  ): Promise<ConsumedAndCounted>;
  /** Deletes expired nonces (a periodic job); returns how many (0 where storage expires them itself). */
  purgeExpired(): Promise<number>;
}
