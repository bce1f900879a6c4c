/**
 * The commit of `KvBillingStore`, for one change or a batch: each change is checked and applied in
 * order on a view of the store (what was read, overlaid with what the changes before it wrote),
 * and the whole is written in ONE `kv.atomic()` checked against the versionstamps of everything
 * read (private to storage/kv).
 */
import { type AccountChange, capDelta, type Hold, type OrgAccount } from "../billing_store.ts";
import { capCounters, counterLimit } from "../spend_caps.ts";
import { orgKeys } from "./_org_keys.ts";
import { counterValue, spentOf, type StoredCounter } from "./_kv_spend_counter.ts";
import { checkedNext, type KvWrites, type MarkerKeys, writeHolds, writeRecords } from "./_billing_commit.ts";

/** Deno KV reads at most this many keys per `getMany`. */
const GET_MANY_LIMIT = 10;

/** The store as the changes so far left it: reads memoised (and checked at commit), writes kept. */
export class BatchView implements KvWrites {
  readonly #kv: Deno.Kv;
  readonly #read = new Map<string, Deno.KvEntryMaybe<unknown>>();
  readonly #written = new Map<string, { key: Deno.KvKey; value: unknown }>();
  /** Blind adds to `Deno.KvU64` counters, per key (one `sum` mutation each). */
  readonly #sums = new Map<string, { key: Deno.KvKey; value: bigint }>();

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Reads the keys not read yet (in parallel `getMany` calls). */
  async prefetch(keys: Deno.KvKey[]): Promise<void> {
    const unread = [...new Map(keys.map((key) => [keyId(key), key])).entries()]
      .filter(([id]) => !this.#read.has(id) && !this.#written.has(id)).map(([, key]) => key);
    const chunks: Deno.KvKey[][] = [];
    for (let i = 0; i < unread.length; i += GET_MANY_LIMIT) chunks.push(unread.slice(i, i + GET_MANY_LIMIT));
    const read = await Promise.all(chunks.map((chunk) => this.#kv.getMany(chunk)));
    for (const entry of read.flat()) this.#read.set(keyId(entry.key), entry);
  }

  /** The value at `key` now (null when absent or deleted). */
  async get<T>(key: Deno.KvKey): Promise<T | null> {
    const id = keyId(key);
    if (this.#written.has(id)) return (this.#written.get(id)!.value ?? null) as T | null;
    await this.prefetch([key]);
    return (this.#read.get(id)!.value ?? null) as T | null;
  }

  set(key: Deno.KvKey, value: unknown): void {
    this.#written.set(keyId(key), { key, value });
  }

  delete(key: Deno.KvKey): void {
    this.#written.set(keyId(key), { key, value: undefined });
  }

  /** Adds `value` to the `Deno.KvU64` at `key` (absent: 0) when the atomic commits; never read. */
  sum(key: Deno.KvKey, value: bigint): void {
    const id = keyId(key);
    this.#sums.set(id, { key, value: (this.#sums.get(id)?.value ?? 0n) + value });
  }

  /** The atomic that writes everything, checked against everything read. */
  atomic(): Deno.AtomicOperation {
    const op = this.#kv.atomic().check(...this.#read.values());
    for (const { key, value } of this.#written.values()) {
      if (value === undefined) op.delete(key);
      else op.set(key, value);
    }
    for (const { key, value } of this.#sums.values()) op.sum(key, value);
    return op;
  }
}

/** The keys a change's conditions read before its spend counters (which depend on what they hold). */
export function keysOf(orgId: string, change: AccountChange): Deno.KvKey[] {
  const holdId = change.addHold?.id ?? change.removeHoldId;
  const { absent, present } = markerKeys(orgId, change);
  return [
    orgKeys.account(orgId),
    ...(holdId === undefined ? [] : [orgKeys.hold(orgId, holdId)]),
    ...absent,
    ...present,
  ];
}

/**
 * Checks `change` on the view and writes it there: the account after it, or null when one of its
 * conditions does not hold (the view is then left half-written: drop it).
 */
export async function applyChange(
  view: BatchView,
  orgId: string,
  change: AccountChange,
): Promise<OrgAccount | null> {
  const holdId = change.addHold?.id ?? change.removeHoldId;
  const { absent, present } = markerKeys(orgId, change);
  const hold = holdId === undefined ? null : await view.get<Hold>(orgKeys.hold(orgId, holdId));
  const reservation = present[0] === undefined ? null : await view.get<Hold>(present[0]);
  const next = checkedNext({
    account: await view.get<OrgAccount>(orgKeys.account(orgId)),
    hold,
    markersFree: (await Promise.all(absent.map((key) => view.get(key)))).every((value) => value === null),
    reserved: present.length === 0 || reservation !== null,
  }, change);
  if (!next) return null;
  const removed = change.removeHoldId === undefined ? null : hold;
  if (!(await moveCap(view, change, { removed, reservation }))) return null;
  view.set(orgKeys.account(orgId), next);
  writeHolds(view, orgId, { added: change.addHold ?? null, removed });
  writeRecords(view, orgId, { change, next });
  return next;
}

/**
 * Moves the spend counters of the capped hold `change` touches (added, removed, or settled late);
 * false when an added capped hold does not fit one of its caps.
 */
async function moveCap(
  view: BatchView,
  change: AccountChange,
  touched: { removed: Hold | null; reservation: Hold | null },
): Promise<boolean> {
  const { removed, reservation } = touched;
  const settled = change.entry?.holdId === undefined
    ? null
    : change.entry.holdId === change.removeHoldId
    ? removed
    : reservation;
  const cap = change.addHold?.cap ?? removed?.cap ?? settled?.cap;
  if (!cap) return true;
  const delta = capDelta(change, { removed, settledCapped: settled?.cap !== undefined });
  for (const counter of capCounters(cap)) {
    const key = orgKeys.capSpent(counter);
    const stored = await view.get<StoredCounter>(key);
    const spentMicro = spentOf(stored) + delta;
    if (change.addHold?.cap && spentMicro > counterLimit(counter, requireLimits(change))) return false;
    view.set(key, counterValue(counter, spentMicro, { holdDay: cap.day, stored }));
  }
  return true;
}

function requireLimits(change: AccountChange) {
  if (!change.capLimits) throw new RangeError("A capped hold needs capLimits");
  return change.capLimits;
}

/**
 * Absent: the credit reference, the settled marker of the entry's hold id, and for a new hold any
 * earlier reservation or settlement of its id. Present: the reservation of a hold id settled
 * without removing its hold now (a late settle of a hold released or expired before).
 */
function markerKeys(orgId: string, { entry, addHold, removeHoldId }: AccountChange): MarkerKeys {
  const keys: MarkerKeys = { absent: [], present: [] };
  if (entry?.reference !== undefined) keys.absent.push(orgKeys.creditReference(orgId, entry.reference));
  if (entry?.holdId !== undefined) {
    keys.absent.push(orgKeys.settledHold(orgId, entry.holdId));
    if (entry.holdId !== removeHoldId) keys.present.push(orgKeys.reservation(orgId, entry.holdId));
  }
  if (addHold) {
    keys.absent.push(orgKeys.reservation(orgId, addHold.id), orgKeys.settledHold(orgId, addHold.id));
  }
  return keys;
}

/** A key as a map key (KV keys here hold strings and numbers only). */
function keyId(key: Deno.KvKey): string {
  return JSON.stringify(key);
}
