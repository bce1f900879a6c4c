import type { Fragment } from "postgres";
import { commitChange } from "./_pg_commit.ts";
import type { BigintSql } from "./_pg_runner.ts";
import { commitBatch } from "./_pg_commit_batch.ts";
import { groupedCommit, type GroupedOutcome, type OrgChanges, plainBatch } from "./_pg_grouped_commit.ts";
import { isStatementBug, StatementGroups } from "./_pg_groups.ts";
import { ACCOUNT, type AccountRow, toAccount } from "./_pg_account.ts";
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
import { readCounter } from "./_pg_spend_caps.ts";
import { purgeCounters } from "./_pg_spend_purge.ts";
import {
  HOLD_COLUMNS,
  type HoldRow,
  LEDGER,
  type LedgerRow,
  toEntry,
  toHold,
  toUsage,
  USAGE,
  type UsageRow,
} from "./_pg_billing_rows.ts";
import { pgArray } from "./_pg_array.ts";

/** Changes one grouped statement takes at most (several orgs' batches). */
const GROUP_MAX_CHANGES = 256;
/**
 * Grouped statements in flight at once: while one waits for its commit to be flushed, the next
 * runs, and the commits arriving meanwhile wait for a place (and so share statements).
 */
const GROUPS_IN_FLIGHT = 2;

/**
 * Balances, holds, ledger and usage in PostgreSQL. A commit is ONE statement (`commitChange`,
 * _pg_commit.ts): the account `UPDATE … WHERE id = $org AND <conditions>` and, as data-modifying
 * CTEs fed by its RETURNING row, the hold and its reservation, the ledger entry, the usage record
 * and a capped hold's spend counters. So they happen together or not at all, in one round trip (a
 * new capped hold: one more statement per counter, in one transaction). A batch commit runs several such statements
 * in one transaction (`commitBatch`, _pg_commit_batch.ts). Concurrent commits on one org queue on its
 * row lock and each re-checks the conditions on the row as the previous one left it (READ
 * COMMITTED); unique keys (hold reservation, ledger reference and hold id) refuse the rest. So the
 * database is the arbiter between service instances.
 *
 * Plain commits (new uncapped holds, releases, settles: `plainBatch`), single or batched, are
 * grouped instead: the commits of every org made while earlier ones are in flight go together in
 * ONE set-based statement (`groupedCommit`, _pg_grouped_commit.ts; `StatementGroups`), each org's
 * changes still all or none and checked as above. Every org of a group whose statement failed is
 * committed alone as before.
 */
export class PgBillingStore implements BillingStore {
  /** One transaction of statements sent together: bounded only to keep a batch's wait short. */
  readonly maxBatch = 64;
  readonly #sql: BigintSql;
  /** Groups that move money (a ledger entry or a usage record): durable commits. */
  readonly #groups: StatementGroups<OrgChanges, OrgAccount[] | null>;
  /** Groups that only release holds: commits that do not wait for the flush (see `releasesOnly`). */
  readonly #holdGroups: StatementGroups<OrgChanges, OrgAccount[] | null>;
  readonly #groupLoneItems: boolean;

  /**
   * `options.holdSql` runs the commits that only release holds; give it a pool whose sessions
   * have `synchronous_commit = off` (`openPgStorage` does). Without it, they use `sql`. With
   * `groupLoneItems`, a lone change also takes the grouped statement (tests of that statement).
   */
  constructor(sql: BigintSql, options: { holdSql?: BigintSql; groupLoneItems?: boolean } = {}) {
    this.#sql = sql;
    this.#groupLoneItems = options.groupLoneItems ?? false;
    this.#groups = this.#grouping(sql);
    this.#holdGroups = this.#grouping(options.holdSql ?? sql);
  }

  #grouping(sql: BigintSql): StatementGroups<OrgChanges, OrgAccount[] | null> {
    return new StatementGroups({
      run: (entries) => this.#runGroup(sql, entries),
      keyOf: (entry) => entry.orgId,
      sizeOf: (entry) => entry.changes.length,
      maxSize: GROUP_MAX_CHANGES,
      maxInFlight: GROUPS_IN_FLIGHT,
    });
  }

  #groupsFor(changes: AccountChange[]): StatementGroups<OrgChanges, OrgAccount[] | null> {
    return releasesOnly(changes) ? this.#holdGroups : this.#groups;
  }

  async getAccount(orgId: string): Promise<OrgAccount | null> {
    const [row] = await this.#sql<AccountRow[]>`SELECT ${
      this.#sql.unsafe(ACCOUNT)
    } FROM orgs WHERE id = ${orgId}`;
    return row ? toAccount(row) : null;
  }

  async commit(orgId: string, change: AccountChange): Promise<OrgAccount | null> {
    if (!plainBatch([change])) return await commitChange(this.#sql, orgId, change);
    return (await this.#groupsFor([change]).submit({ orgId, changes: [change] }))?.[0] ?? null;
  }

  commitBatch(orgId: string, changes: AccountChange[]): Promise<OrgAccount[] | null> {
    if (changes.length > this.maxBatch) {
      return Promise.reject(new RangeError(`Cannot commit more than ${this.maxBatch} changes at once`));
    }
    if (changes.length === 0 || !plainBatch(changes)) return commitBatch(this.#sql, orgId, changes);
    return this.#groupsFor(changes).submit({ orgId, changes });
  }

  /**
   * One group's statement; when it failed (one org's refused id or bad amount must not fail the
   * others), each org commits alone. A statement the server cannot run at all (a bug: SQLSTATE
   * class 42, 0A) fails every org.
   */
  async #runGroup(
    sql: BigintSql,
    entries: OrgChanges[],
  ): Promise<PromiseSettledResult<OrgAccount[] | null>[]> {
    const alone = () => Promise.allSettled(entries.map((entry) => commitAlone(sql, entry)));
    // A lone change: the per-change statement does the same in about half the time.
    if (!this.#groupLoneItems && entries.length === 1 && entries[0]!.changes.length === 1) {
      return await alone();
    }
    let outcomes: GroupedOutcome[];
    try {
      outcomes = await groupedCommit(sql, entries);
    } catch (error) {
      if (isStatementBug(error)) throw error;
      return await alone();
    }
    return outcomes.map((value) => ({ status: "fulfilled", value }));
  }

  capSpent(counter: SpendCounter): Promise<bigint> {
    return readCounter(this.#sql, counter);
  }

  purgeSpendCounters(page: SpendPurgePage): Promise<SpendPurgeStep> {
    return purgeCounters(this.#sql, page);
  }

  async leaseUsage(agentPredictionIds: readonly string[]): Promise<Map<string, LeaseUsage>> {
    if (agentPredictionIds.length === 0) return new Map();
    const rows = await this.#sql<{ id: string; calls: bigint; cost_micro: bigint }[]>`
      SELECT metadata ->> 'agentPredictionId' AS id, count(*)::bigint AS calls, sum(amount_micro)::bigint AS cost_micro
      FROM org_usage
      WHERE metadata ? 'agentPredictionId'
        AND metadata ->> 'agentPredictionId' = ANY(${pgArray([...agentPredictionIds])}::text[])
      GROUP BY 1`;
    return new Map(rows.map((row) => [row.id, { calls: Number(row.calls), costMicro: row.cost_micro }]));
  }

  async getHold(orgId: string, holdId: string): Promise<Hold | null> {
    const [row] = await this.#sql<HoldRow[]>`
      SELECT ${this.#sql.unsafe(HOLD_COLUMNS)} FROM org_holds
      WHERE org_id = ${orgId} AND hold_id = ${holdId}`;
    return row ? toHold(row) : null;
  }

  async getHolds(orgId: string, holdIds: string[]): Promise<Hold[]> {
    if (holdIds.length === 0) return [];
    const rows = await this.#sql<HoldRow[]>`
      SELECT ${this.#sql.unsafe(HOLD_COLUMNS)} FROM org_holds
      WHERE org_id = ${orgId} AND hold_id = ANY(${pgArray(holdIds)}::text[])`;
    return rows.map(toHold);
  }

  async listHolds(orgId: string): Promise<Hold[]> {
    const rows = await this.#sql<HoldRow[]>`
      SELECT ${this.#sql.unsafe(HOLD_COLUMNS)} FROM org_holds
      WHERE org_id = ${orgId} ORDER BY hold_id`;
    return rows.map(toHold);
  }

  async findReservation(orgId: string, holdId: string): Promise<Hold | null> {
    const [row] = await this.#sql<HoldRow[]>`
      SELECT ${this.#sql.unsafe(HOLD_COLUMNS)} FROM org_hold_reservations
      WHERE org_id = ${orgId} AND hold_id = ${holdId}`;
    return row ? toHold(row) : null;
  }

  async listExpiredHolds(nowMs: number, page: ExpiredPage): Promise<ExpiredHold[]> {
    const { after } = page;
    const rows = await this.#sql<{ org_id: string; hold_id: string; expires_at_ms: bigint }[]>`
      SELECT org_id, hold_id, expires_at_ms FROM org_holds WHERE expires_at_ms <= ${nowMs} ${
      after
        ? this
          .#sql`AND (expires_at_ms, org_id, hold_id) > (${after.expiresAtMs}::bigint, ${after.orgId}, ${after.holdId})`
        : this.#sql``
    }
      ORDER BY expires_at_ms, org_id, hold_id LIMIT ${page.limit}`;
    return rows.map((row) => ({
      orgId: row.org_id,
      holdId: row.hold_id,
      expiresAtMs: Number(row.expires_at_ms),
    }));
  }

  async findCredit(orgId: string, reference: string): Promise<LedgerEntry | null> {
    const [row] = await this.#sql<LedgerRow[]>`
      SELECT ${
      this.#sql.unsafe(LEDGER)
    } FROM org_ledger WHERE org_id = ${orgId} AND reference = ${reference}`;
    return row ? toEntry(row) : null;
  }

  async findSettlement(orgId: string, holdId: string): Promise<LedgerEntry | null> {
    const [row] = await this.#sql<LedgerRow[]>`
      SELECT ${this.#sql.unsafe(LEDGER)} FROM org_ledger WHERE org_id = ${orgId} AND hold_id = ${holdId}`;
    return row ? toEntry(row) : null;
  }

  async listLedger(orgId: string, page: SeqPage): Promise<LedgerEntry[]> {
    const rows = await this.#sql<LedgerRow[]>`
      SELECT ${this.#sql.unsafe(LEDGER)} FROM org_ledger WHERE org_id = ${orgId} ${this.#before(page)}
      ORDER BY seq DESC LIMIT ${page.limit}`;
    return rows.map(toEntry);
  }

  async listUsage(orgId: string, page: SeqPage): Promise<UsageRecord[]> {
    const rows = await this.#sql<UsageRow[]>`
      SELECT ${this.#sql.unsafe(USAGE)} FROM org_usage WHERE org_id = ${orgId} ${this.#before(page)}
      ORDER BY seq DESC LIMIT ${page.limit}`;
    return rows.map(toUsage);
  }

  #before(page: SeqPage): Fragment {
    return page.beforeSeq === undefined ? this.#sql`` : this.#sql`AND seq < ${page.beforeSeq}`;
  }
}

/**
 * True when `changes` only release holds (no new hold, no ledger entry, no usage record). Such a
 * commit need not wait for its flush: it is visible to every instance as soon as it returns, and
 * losing it (only a database crash or failover can) leaves a hold that the expiry job releases.
 * A reserve is NOT such a commit: the gateway spends the provider's money on the strength of it,
 * and the settle needs its reservation to charge the call, so reserves stay durable.
 */
function releasesOnly(changes: AccountChange[]): boolean {
  return changes.every((change) =>
    change.removeHoldId !== undefined && !change.addHold && !change.entry && !change.usage
  );
}

/** One org's changes committed by the per-change path: a lone change in its statement, else a batch. */
function commitAlone(sql: BigintSql, { orgId, changes }: OrgChanges): Promise<OrgAccount[] | null> {
  if (changes.length !== 1) return commitBatch(sql, orgId, changes);
  return commitChange(sql, orgId, changes[0]!).then((next) => next && [next]);
}
