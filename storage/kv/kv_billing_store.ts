import {
  type AccountChange,
  type BillingStore,
  capDelta,
  type ExpiredHold,
  type ExpiredPage,
  type Hold,
  type LedgerEntry,
  type OrgAccount,
  type SeqPage,
  type UsageRecord,
} from "../billing_store.ts";
import { orgKeys } from "./_org_keys.ts";
import {
  type CapRead,
  checkedNext,
  fitsCap,
  type MarkerKeys,
  type Reads,
  writeHolds,
  writeRecords,
} from "./_billing_commit.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { LOST, retryConditional } from "../retry_conditional.ts";

/** Re-reads after a commit lost a race with another handle; every lost race means another commit went in. */
const MAX_ATTEMPTS = 1_000;

/**
 * Balances, holds, ledger and usage in Deno KV (bigint values stored natively). A commit reads
 * the account and whatever its conditions depend on (the hold, the reference, settled-hold and
 * reservation markers), checks them, and writes everything in one `kv.atomic()` checked against
 * those versionstamps; when another writer got in between, it reads and checks again. So the
 * balance, its ledger entry, the holds and the usage record change together or not at all.
 */
export class KvBillingStore implements BillingStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async getAccount(orgId: string): Promise<OrgAccount | null> {
    return (await this.#kv.get<OrgAccount>(orgKeys.account(orgId))).value;
  }

  async commit(orgId: string, change: AccountChange): Promise<OrgAccount | null> {
    if (change.addHold && change.removeHoldId !== undefined) {
      throw new RangeError("Cannot add and remove a hold in one commit");
    }
    return await retryConditional(async () => {
      const read = await this.#read(orgId, change);
      const next = checkedNext(read, change);
      if (!next) return null;
      const removed = change.removeHoldId === undefined ? null : read.hold;
      const capped = await this.#readCap(read, change, removed);
      if (capped && !fitsCap(capped, change)) return null;
      const result = await commitAtomic(() => {
        const op = this.#kv.atomic().check(...read.entries).set(orgKeys.account(orgId), next);
        writeHolds(op, orgId, { added: change.addHold ?? null, removed });
        writeRecords(op, orgId, { change, next });
        if (capped) {
          const { cap, spentMicro, delta } = capped;
          op.set(orgKeys.dailySpend(cap.minerHotkey, cap.day), spentMicro + delta);
        }
        return op;
      });
      return result.ok ? next : LOST;
    }, { what: `commit to account ${orgId}`, attempts: MAX_ATTEMPTS });
  }

  /**
   * The daily counter of the capped hold `change` touches (added, removed, or settled late), read
   * and added to `read.entries` so that the commit checks it too; null when no capped hold is touched.
   */
  async #readCap(read: Reads, change: AccountChange, removed: Hold | null): Promise<CapRead | null> {
    const settled = change.entry?.holdId === undefined
      ? null
      : change.entry.holdId === change.removeHoldId
      ? removed
      : read.reservation;
    const cap = change.addHold?.cap ?? removed?.cap ?? settled?.cap;
    if (!cap) return null;
    const entry = await this.#kv.get<bigint>(orgKeys.dailySpend(cap.minerHotkey, cap.day));
    read.entries.push(entry);
    const delta = capDelta(change, { removed, settledCapped: settled?.cap !== undefined });
    return { cap, spentMicro: entry.value ?? 0n, delta };
  }

  async dailySpend(minerHotkey: string, day: string): Promise<bigint> {
    return (await this.#kv.get<bigint>(orgKeys.dailySpend(minerHotkey, day))).value ?? 0n;
  }

  /** Everything the change's conditions depend on, read at one point in time. */
  async #read(orgId: string, change: AccountChange): Promise<Reads> {
    const holdId = change.addHold?.id ?? change.removeHoldId;
    const markers = markerKeys(orgId, change);
    const holdKeys = holdId === undefined ? [] : [orgKeys.hold(orgId, holdId)];
    const entries = await this.#kv.getMany([
      orgKeys.account(orgId),
      ...holdKeys,
      ...markers.absent,
      ...markers.present,
    ]);
    const presentFrom = 1 + holdKeys.length + markers.absent.length;
    return {
      entries,
      account: entries[0]?.value as OrgAccount | null,
      hold: holdId === undefined ? null : entries[1]?.value as Hold | null,
      markersFree: entries.slice(1 + holdKeys.length, presentFrom).every((e) => e.versionstamp === null),
      reserved: entries.slice(presentFrom).every((e) => e.versionstamp !== null),
      reservation: (entries[presentFrom]?.value ?? null) as Hold | null,
    };
  }

  async getHold(orgId: string, holdId: string): Promise<Hold | null> {
    return (await this.#kv.get<Hold>(orgKeys.hold(orgId, holdId))).value;
  }

  async findReservation(orgId: string, holdId: string): Promise<Hold | null> {
    return (await this.#kv.get<Hold>(orgKeys.reservation(orgId, holdId))).value;
  }

  async listHolds(orgId: string): Promise<Hold[]> {
    const out: Hold[] = [];
    for await (const entry of this.#kv.list<Hold>({ prefix: orgKeys.holds(orgId) })) out.push(entry.value);
    return out;
  }

  async listExpiredHolds(nowMs: number, page: ExpiredPage): Promise<ExpiredHold[]> {
    const { after, limit } = page;
    if (after && after.expiresAtMs > nowMs) return [];
    const prefix = orgKeys.holdExpiries();
    const end = [...prefix, nowMs + 1];
    // `start` is inclusive: one more is read in case it is `after` itself.
    const selector = after
      ? { start: orgKeys.holdExpiry(after.expiresAtMs, after.orgId, after.holdId), end }
      : { prefix, end };
    const out: ExpiredHold[] = [];
    for await (const entry of this.#kv.list(selector, { limit: limit + 1 })) {
      const [, expiresAtMs, orgId, holdId] = entry.key as [string, number, string, string];
      const isAfter = after?.expiresAtMs === expiresAtMs && after.orgId === orgId && after.holdId === holdId;
      if (!isAfter) out.push({ orgId, holdId, expiresAtMs });
    }
    return out.slice(0, limit);
  }

  findCredit(orgId: string, reference: string): Promise<LedgerEntry | null> {
    return this.#entryAt(orgKeys.creditReference(orgId, reference), orgId);
  }

  findSettlement(orgId: string, holdId: string): Promise<LedgerEntry | null> {
    return this.#entryAt(orgKeys.settledHold(orgId, holdId), orgId);
  }

  listLedger(orgId: string, page: SeqPage): Promise<LedgerEntry[]> {
    return this.#newestFirst<LedgerEntry>(orgKeys.ledgers(orgId), page);
  }

  listUsage(orgId: string, page: SeqPage): Promise<UsageRecord[]> {
    return this.#newestFirst<UsageRecord>(orgKeys.usages(orgId), page);
  }

  async #entryAt(markerKey: Deno.KvKey, orgId: string): Promise<LedgerEntry | null> {
    const seq = (await this.#kv.get<number>(markerKey)).value;
    if (seq === null) return null;
    return (await this.#kv.get<LedgerEntry>(orgKeys.ledger(orgId, seq))).value;
  }

  async #newestFirst<T>(prefix: Deno.KvKey, page: SeqPage): Promise<T[]> {
    const selector = page.beforeSeq === undefined ? { prefix } : { prefix, end: [...prefix, page.beforeSeq] };
    const out: T[] = [];
    for await (const entry of this.#kv.list<T>(selector, { limit: page.limit, reverse: true })) {
      out.push(entry.value);
    }
    return out;
  }
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
