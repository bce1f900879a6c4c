/**
 * A signed use (`SignedUse`) in Deno KV, made with the change it authorizes. Deno KV has no
 * statement to share, so the use comes in two steps: the rate hit first, on its own commit (exact,
 * as `KvRateLimitStore.hit`: every use counts, a replay too), then the nonce, taken in the change's
 * own atomic commit, checked against its entry as read (absent or expired): of racing uses of one
 * nonce on any handles, exactly one commits; the others read again and find it used.
 */
import type { ConsumedAndCounted, SignedUse } from "../nonce_store.ts";
import { addHits } from "./kv_rate_limit_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";

/** Reads after a lost commit before giving up (each lost commit means another use committed). */
const MAX_ATTEMPTS = 8;

/** Where a nonce's use lives: its expiry, on the storage's clock; KV deletes it after the ttl. */
export function nonceKey(hotkey: string, nonce: string): Deno.KvKey {
  return ["nonce", hotkey, nonce];
}

/** A use whose hit is counted and whose nonce is still to be taken. */
export interface CountedUse {
  use: SignedUse;
  /** The window's count with this hit. */
  count: number;
}

/** Whether a nonce entry as read holds a use that has not expired. */
function live(entry: Deno.KvEntryMaybe<number>, nowMs: number): boolean {
  return entry.value !== null && entry.value > nowMs;
}

/** Adds the nonce's take to `op`, checked against `entry` as read (absent or expired). */
export function takeNonce(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntryMaybe<number>,
  ttlMs: number,
  nowMs: number,
): void {
  const ttl = Math.max(1, Math.ceil(ttlMs));
  op.check(entry).set(entry.key, nowMs + ttl, { expireIn: ttl });
}

/** Takes the nonce alone (no change rides on it): true for the first use, false while one is live. */
export async function consumeNonce(
  kv: Deno.Kv,
  key: Deno.KvKey,
  ttlMs: number,
  now: () => number,
): Promise<boolean> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<number>(key);
    const nowMs = now();
    if (live(entry, nowMs)) return false;
    const result = await commitAtomic(() => {
      const op = kv.atomic();
      takeNonce(op, entry, ttlMs, nowMs);
      return op;
    });
    if (result.ok) return true;
  }
  throw new Error(`Cannot consume nonce: ${String(key[1])} is too contended`);
}

/**
 * The first step: counts the hit. Over the rate, the nonce is taken alone and the use is refused
 * (as `consumeCounting` answers it); otherwise the counted use, for the change's commit.
 */
export async function countUse(
  kv: Deno.Kv,
  use: SignedUse,
  now: () => number,
): Promise<{ counted: CountedUse } | { refused: ConsumedAndCounted }> {
  const { bucket, ...window } = use.hit;
  const { count } = (await addHits(kv, { bucket, ...window }))!;
  if (count <= use.maxCount) return { counted: { use, count } };
  const fresh = await consumeNonce(kv, nonceKey(use.hotkey, use.nonce), use.ttlMs, now);
  return { refused: { fresh, count } };
}

/** The refusal of a counted use whose nonce entry, as read, holds a live use; null when it is free. */
export function usedAlready(
  counted: CountedUse,
  entry: Deno.KvEntryMaybe<number>,
  nowMs: number,
): ConsumedAndCounted | null {
  return live(entry, nowMs) ? { fresh: false, count: counted.count } : null;
}

/** Commits the nonce's take alone, for a change that writes nothing; false when it lost a race. */
export async function takeNonceAlone(
  kv: Deno.Kv,
  counted: CountedUse,
  entry: Deno.KvEntryMaybe<number>,
  nowMs: number,
): Promise<boolean> {
  const result = await commitAtomic(() => {
    const op = kv.atomic();
    takeNonce(op, entry, counted.use.ttlMs, nowMs);
    return op;
  });
  return result.ok;
}
