import type { RateLimitStore, WindowHits } from "../rate_limit_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { LOST, retryConditional } from "../retry_conditional.ts";

/** Bounded retries of the read–check–write loop; each round lets at least one contender through. */
const MAX_ATTEMPTS = 1_000;

/** Where a window's count lives. */
export function windowKey(bucket: string, windowStartMs: number): Deno.KvKey {
  return ["rate_window", bucket, windowStartMs];
}

/** What `addHits` adds, and what else its one atomic step checks or writes. */
export interface AddHits extends WindowHits {
  bucket: string;
  /**
   * An entry that must not change between the read and the write (else the step is retried);
   * when `stillValid` rejects it as read, nothing is counted and `addHits` answers null.
   */
  guard?: { key: Deno.KvKey; stillValid(entry: Deno.KvEntryMaybe<unknown>): boolean };
  /** Written in the same commit by the step that opens the window (its first hits), never again. */
  onOpen?: { key: Deno.KvKey; value: unknown };
  /**
   * Read in the same snapshot as the window (not checked by the commit: the count does not depend
   * on them). When `required` and one of them is absent, nothing is counted and `addHits` answers null.
   */
  alsoRead?: { keys: Deno.KvKey[]; required?: boolean };
}

/** A counted step: the window's new count, and the `alsoRead` entries' values as the step saw them. */
export interface HitsAdded {
  count: number;
  /** In the order of `alsoRead.keys` (null for an absent entry; empty without `alsoRead`). */
  alsoRead: unknown[];
}

/**
 * Adds `hits` to the window of `bucket` in one versionstamp-checked read–increment–write (the
 * check is what keeps racing handles from losing each other's hits). Returns the new count, or
 * null when the guard says no.
 */
export async function addHits(kv: Deno.Kv, add: AddHits): Promise<HitsAdded | null> {
  const key = windowKey(add.bucket, add.windowStartMs);
  const keys = [key, ...(add.guard ? [add.guard.key] : []), ...(add.alsoRead?.keys ?? [])];
  return await retryConditional(async () => {
    const [current, ...others] = await kv.getMany<unknown[]>(keys);
    const guard = add.guard ? others.shift() : undefined;
    if (guard && !add.guard!.stillValid(guard)) return null;
    const also = others.map((entry) => entry.value);
    if (add.alsoRead?.required && also.includes(null)) return null;
    const previous = current!.value as number | null;
    const count = (previous ?? 0) + (add.hits ?? 1);
    const result = await commitAtomic(() => {
      const op = kv.atomic().check(current!);
      if (guard) op.check(guard);
      if (previous === null && add.onOpen) op.set(add.onOpen.key, add.onOpen.value);
      return op.set(key, count, { expireIn: 2 * add.windowMs });
    });
    return result.ok ? { count, alsoRead: also } : LOST;
  }, { what: `count a hit of ${add.bucket}`, attempts: MAX_ATTEMPTS });
}

/**
 * Rate-limit windows in Deno KV. A hit is a versionstamp-checked read–increment–write, so the
 * count is exact across handles on one store; KV deletes a window itself (`expireIn`, two window
 * lengths after its last hit), so there is nothing to purge.
 */
export class KvRateLimitStore implements RateLimitStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async hit(bucket: string, at: WindowHits): Promise<number> {
    return (await addHits(this.#kv, { ...at, bucket }))!.count;
  }

  purgeEnded(_nowMs: number): Promise<number> {
    return Promise.resolve(0);
  }
}
