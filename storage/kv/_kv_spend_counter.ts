/**
 * How Deno KV stores a spend counter (docs/billing.md, "Spend caps of validator completions"): a
 * daily or validator counter as a bigint, its day being part of its key; a lease counter as
 * `{spentMicro, day}`, dated by the latest UTC day of a hold that named it, which its purge goes by
 * ("Purge of spend counters"). A lease counter stored before lease counters were dated is a bare
 * bigint: it reads the same, and is dated by its next move or by the purge. Private to storage/kv.
 */
import type { CapName, SpendCounter } from "../spend_caps.ts";

/** A lease counter as stored since lease counters are dated. */
export interface DatedCounter {
  spentMicro: bigint;
  day: string;
}

/** A counter's stored value: a bigint, or a dated lease counter. */
export type StoredCounter = bigint | DatedCounter;

/** What a counter has spent (0 when it is not stored). */
export function spentOf(stored: StoredCounter | null): bigint {
  if (stored === null) return 0n;
  return typeof stored === "bigint" ? stored : stored.spentMicro;
}

/**
 * The value to store for `counter` after a hold taken on `holdDay` moved it to `spentMicro`: a
 * lease counter keeps the later of its day and the hold's.
 */
export function counterValue(
  counter: SpendCounter,
  spentMicro: bigint,
  at: { holdDay: string; stored: StoredCounter | null },
): StoredCounter {
  if (counter.cap !== "lease") return spentMicro;
  const { holdDay, stored } = at;
  const day = stored !== null && typeof stored !== "bigint" && stored.day > holdDay ? stored.day : holdDay;
  return { spentMicro, day };
}

/**
 * The day a stored counter of `cap` is dated by: the last part of a daily or validator counter's
 * key, a lease counter's own day; null for a lease counter stored before they were dated.
 */
export function counterDay(cap: CapName, entry: { key: Deno.KvKey; value: StoredCounter }): string | null {
  if (cap !== "lease") return String(entry.key.at(-1));
  return typeof entry.value === "bigint" ? null : entry.value.day;
}
