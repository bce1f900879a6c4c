/**
 * The purge of spend counters in Deno KV (`BillingStore.purgeSpendCounters`, docs/billing.md
 * "Purge of spend counters"). A step lists at most `limit` counters in key order (the daily ones,
 * then the validator and the lease ones) from where the previous step stopped, then reads the holds
 * still held, and deletes each listed counter dated before the step's day that none of them names,
 * checked against the versionstamp it was listed with. Every commit that takes, settles or releases
 * a capped hold writes its counters, so a counter a hold started or stopped naming since it was
 * listed has another versionstamp and is kept. Private to storage/kv.
 */
import type { Hold } from "../billing_store.ts";
import {
  CAP_NAMES,
  capCounters,
  type CapName,
  type SpendPurgePage,
  type SpendPurgeStep,
} from "../spend_caps.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { counterDay, type StoredCounter } from "./_kv_spend_counter.ts";
import { orgKeys } from "./_org_keys.ts";

/** Counters one atomic deletes (each is one versionstamp check; an atomic checks at most 100). */
const PER_ATOMIC = 50;

type CounterEntry = Deno.KvEntry<StoredCounter>;

interface Listed {
  entries: { cap: CapName; entry: CounterEntry }[];
  next: string | null;
}

export async function purgeKvCounters(kv: Deno.Kv, page: SpendPurgePage): Promise<SpendPurgeStep> {
  if (!Number.isSafeInteger(page.limit) || page.limit < 1) {
    throw new RangeError(`Cannot purge spend counters: limit must be a positive integer, not ${page.limit}`);
  }
  const { entries, next } = await listCounters(kv, page);
  const old: CounterEntry[] = [];
  const undated: CounterEntry[] = [];
  for (const { cap, entry } of entries) {
    const day = counterDay(cap, entry);
    if (day === null) undated.push(entry);
    else if (day < page.beforeDay) old.push(entry);
  }
  await dateUndated(kv, undated, page.today);
  if (old.length === 0) return { purged: 0, next };
  // Read after the counters were listed: a hold held since then moved its counters (a new
  // versionstamp), and one that ended since then did too.
  const named = await countersOfHeldHolds(kv);
  return { purged: await deleteUnchanged(kv, old.filter((entry) => !named.has(keyId(entry.key)))), next };
}

/** At most `page.limit` counters from `page.after` on, and where the next step starts. */
async function listCounters(kv: Deno.Kv, page: SpendPurgePage): Promise<Listed> {
  const start = positionOf(page.after);
  const entries: Listed["entries"] = [];
  for (const cap of CAP_NAMES.slice(CAP_NAMES.indexOf(start.cap))) {
    const limit = page.limit - entries.length;
    const cursor = cap === start.cap ? start.cursor : undefined;
    const list = kv.list<StoredCounter>({ prefix: orgKeys.capSpents(cap) }, {
      limit,
      ...(cursor ? { cursor } : {}),
    });
    let read = 0;
    for await (const entry of list) {
      entries.push({ cap, entry });
      read++;
    }
    if (read === limit) return { entries, next: JSON.stringify([cap, list.cursor]) };
  }
  return { entries, next: null };
}

/** The cap and KV cursor a `next` of this adapter names; the first cap when absent. */
function positionOf(after: string | undefined): { cap: CapName; cursor?: string } {
  if (after === undefined) return { cap: CAP_NAMES[0]! };
  let parsed: unknown;
  try {
    parsed = JSON.parse(after);
  } catch {
    parsed = null;
  }
  const [cap, cursor] = Array.isArray(parsed) ? parsed : [];
  if (!CAP_NAMES.includes(cap) || typeof cursor !== "string") {
    throw new RangeError(`Cannot purge spend counters: not a position of this store: ${after}`);
  }
  return { cap, cursor };
}

/** The keys (as `keyId`) of every counter a hold still held names. */
async function countersOfHeldHolds(kv: Deno.Kv): Promise<Set<string>> {
  const named = new Set<string>();
  for await (const { value: hold } of kv.list<Hold>({ prefix: orgKeys.allHolds() })) {
    if (!hold.cap) continue;
    for (const counter of capCounters(hold.cap)) named.add(keyId(orgKeys.capSpent(counter)));
  }
  return named;
}

/** Deletes each counter still as listed; returns how many. An atomic that fails is redone one by one. */
async function deleteUnchanged(kv: Deno.Kv, entries: CounterEntry[]): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < entries.length; i += PER_ATOMIC) {
    const chunk = entries.slice(i, i + PER_ATOMIC);
    if (await deleteAll(kv, chunk)) {
      deleted += chunk.length;
      continue;
    }
    for (const entry of chunk) if (await deleteAll(kv, [entry])) deleted++;
  }
  return deleted;
}

async function deleteAll(kv: Deno.Kv, entries: CounterEntry[]): Promise<boolean> {
  const result = await commitAtomic(() => {
    const op = kv.atomic();
    for (const entry of entries) op.check(entry).delete(entry.key);
    return op;
  });
  return result.ok;
}

/**
 * Dates each lease counter stored before lease counters were dated with `today`, if it is still
 * as listed (a move meanwhile has dated it already): it is purged once that day is old enough.
 */
async function dateUndated(kv: Deno.Kv, entries: CounterEntry[], today: string): Promise<void> {
  for (const entry of entries) {
    await commitAtomic(() =>
      kv.atomic().check(entry).set(entry.key, { spentMicro: entry.value, day: today })
    );
  }
}

/** A key as a set member (counter keys hold strings only). */
function keyId(key: Deno.KvKey): string {
  return JSON.stringify(key);
}
