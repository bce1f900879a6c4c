import {
  type AccountChange,
  type BillingStore,
  type ExpiredHold,
  type ExpiredPage,
  type Hold,
  type LeaseUsage,
  type LedgerEntry,
  type OrgAccount,
  type SeqPage,
  type SpendCounter,
  type SpendPurgePage,
  type SpendPurgeStep,
  type UsageRecord,
} from "../billing_store.ts";
import { orgKeys } from "./_org_keys.ts";
import { spentOf, type StoredCounter } from "./_kv_spend_counter.ts";
import { purgeKvCounters } from "./_kv_spend_purge.ts";
import { applyChange, BatchView, keysOf } from "./_billing_batch.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { LOST, retryConditional } from "../retry_conditional.ts";

/** Re-reads after a commit lost a race with another handle; every lost race means another commit went in. */
const MAX_ATTEMPTS = 1_000;

/**
 * Balances, holds, ledger and usage in Deno KV (bigint values stored natively). A commit reads
 * the account and whatever its conditions depend on (the hold, the reference, settled-hold and
 * reservation markers, a capped hold's spend counters), checks them, and writes everything in one
 * `kv.atomic()` checked against those versionstamps; when another writer got in between, it reads
 * and checks again. So the balance, its ledger entry, the holds and the usage record change
 * together or not at all. A batch commit checks its changes one after the other on what the
 * changes before each left (_billing_batch.ts) and writes them all in the same single atomic.
 */
export class KvBillingStore implements BillingStore {
  /**
   * One atomic checks at most 100 keys: a change reads at most seven (its hold, three markers,
   * three spend counters) besides the account, which the batch's changes share.
   */
  readonly maxBatch = 12;
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async getAccount(orgId: string): Promise<OrgAccount | null> {
    return (await this.#kv.get<OrgAccount>(orgKeys.account(orgId))).value;
  }

  async commit(orgId: string, change: AccountChange): Promise<OrgAccount | null> {
    return (await this.commitBatch(orgId, [change]))?.[0] ?? null;
  }

  async commitBatch(orgId: string, changes: AccountChange[]): Promise<OrgAccount[] | null> {
    for (const change of changes) {
      if (change.addHold && change.removeHoldId !== undefined) {
        throw new RangeError("Cannot add and remove a hold in one commit");
      }
    }
    if (changes.length === 0) return [];
    if (changes.length > this.maxBatch) {
      throw new RangeError(`Cannot commit more than ${this.maxBatch} changes at once`);
    }
    return await retryConditional(async () => {
      const view = new BatchView(this.#kv);
      await view.prefetch(changes.flatMap((change) => keysOf(orgId, change)));
      const accounts: OrgAccount[] = [];
      for (const change of changes) {
        const next = await applyChange(view, orgId, change);
        if (!next) return null;
        accounts.push(next);
      }
      const result = await commitAtomic(() => view.atomic());
      return result.ok ? accounts : LOST;
    }, { what: `commit to account ${orgId}`, attempts: MAX_ATTEMPTS });
  }

  async capSpent(counter: SpendCounter): Promise<bigint> {
    return spentOf((await this.#kv.get<StoredCounter>(orgKeys.capSpent(counter))).value);
  }

  purgeSpendCounters(page: SpendPurgePage): Promise<SpendPurgeStep> {
    return purgeKvCounters(this.#kv, page);
  }

  async leaseUsage(agentPredictionIds: readonly string[]): Promise<Map<string, LeaseUsage>> {
    const sums = await Promise.all(agentPredictionIds.map(async (id) => {
      const usage = { calls: 0, costMicro: 0n };
      for await (const entry of this.#kv.list<bigint>({ prefix: orgKeys.leaseUsages(id) })) {
        usage.calls++;
        usage.costMicro += entry.value;
      }
      return [id, usage] as const;
    }));
    return new Map(sums.filter(([, usage]) => usage.calls > 0));
  }

  async getHold(orgId: string, holdId: string): Promise<Hold | null> {
    return (await this.#kv.get<Hold>(orgKeys.hold(orgId, holdId))).value;
  }

  async findReservation(orgId: string, holdId: string): Promise<Hold | null> {
    return (await this.#kv.get<Hold>(orgKeys.reservation(orgId, holdId))).value;
  }

  async getHolds(orgId: string, holdIds: string[]): Promise<Hold[]> {
    const keys = holdIds.map((holdId) => orgKeys.hold(orgId, holdId));
    const chunks: Deno.KvKey[][] = [];
    for (let i = 0; i < keys.length; i += 10) chunks.push(keys.slice(i, i + 10));
    const entries = (await Promise.all(chunks.map((chunk) => this.#kv.getMany<Hold[]>(chunk)))).flat();
    return entries.flatMap((entry) => entry.value === null ? [] : [entry.value]);
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
