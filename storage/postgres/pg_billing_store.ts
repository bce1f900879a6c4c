import type { Fragment, Sql } from "postgres";
import { ACCOUNT, type AccountRow, toAccount } from "./_pg_account.ts";
import {
  type AccountChange,
  type BillingStore,
  type ExpiredHold,
  type ExpiredPage,
  type Hold,
  type LedgerEntry,
  type LedgerKind,
  MAX_MICRO,
  type OrgAccount,
  type SeqPage,
  type UsageRecord,
  type UsageValue,
} from "../billing_store.ts";

interface HoldRow {
  hold_id: string;
  amount_micro: bigint;
  created_at_ms: bigint;
  expires_at_ms: bigint;
}

interface LedgerRow {
  seq: bigint;
  at_ms: bigint;
  kind: LedgerKind;
  amount_micro: bigint;
  balance_after_micro: bigint;
  reference: string | null;
  hold_id: string | null;
}

interface UsageRow {
  seq: bigint;
  at_ms: bigint;
  hold_id: string;
  key_id: string | null;
  miner_hotkey: string | null;
  description: string;
  metadata: Record<string, UsageValue>;
  amount_micro: bigint;
}

/** postgres.js with BIGINT read and written as `bigint` (as `openPgStorage` configures it). */
type BigintSql = Sql<{ bigint: bigint }>;

const UNIQUE_VIOLATION = "23505";
const LEDGER = "seq, at_ms, kind, amount_micro, balance_after_micro, reference, hold_id";
const HOLD = "org_id, hold_id, amount_micro, created_at_ms, expires_at_ms";
const USAGE = "seq, at_ms, hold_id, key_id, miner_hotkey, description, metadata, amount_micro";

/**
 * Balances, holds, ledger and usage in PostgreSQL. A commit is ONE statement: the account
 * `UPDATE … WHERE id = $org AND <conditions>` (see `#conditions`) and, as data-modifying CTEs fed
 * by its RETURNING row, the hold and its reservation, the ledger entry and the usage record. So
 * they happen together or not at all, in one round trip. Concurrent commits on one org queue on its
 * row lock and each re-checks the conditions on the row as the previous one left it (READ
 * COMMITTED); unique keys (hold reservation, ledger reference and hold id) refuse the rest. So the
 * database is the arbiter between service instances.
 */
export class PgBillingStore implements BillingStore {
  readonly #sql: BigintSql;

  constructor(sql: BigintSql) {
    this.#sql = sql;
  }

  async getAccount(orgId: string): Promise<OrgAccount | null> {
    const [row] = await this.#sql<AccountRow[]>`SELECT ${
      this.#sql.unsafe(ACCOUNT)
    } FROM orgs WHERE id = ${orgId}`;
    return row ? toAccount(row) : null;
  }

  async commit(orgId: string, change: AccountChange): Promise<OrgAccount | null> {
    const sql = this.#sql;
    const { addHold, removeHoldId, entry, usage } = change;
    if (addHold && removeHoldId !== undefined) {
      throw new RangeError("Cannot add and remove a hold in one commit");
    }
    const removed = removeHoldId === undefined ? sql`` : sql`removed AS (
      DELETE FROM org_holds WHERE org_id = ${orgId} AND hold_id = ${removeHoldId} RETURNING amount_micro),`;
    const held = removeHoldId === undefined
      ? sql`held_micro + ${addHold?.amountMicro ?? 0n}`
      : sql`held_micro - (SELECT amount_micro FROM removed)`;
    try {
      const [row] = await sql<AccountRow[]>`
        WITH ${removed} account AS (
          UPDATE orgs SET balance_micro = balance_micro + ${entry?.amountMicro ?? 0n}, held_micro = ${held},
            version = version + 1, last_usage_at_ms = ${
        usage ? sql`${change.atMs}::bigint` : sql`last_usage_at_ms`
      }
          WHERE id = ${orgId} ${this.#conditions(orgId, change)}
          RETURNING ${sql.unsafe(ACCOUNT)}
        )
        ${this.#holdInsert(orgId, change)} ${this.#entryInsert(orgId, change)} ${
        this.#usageInsert(orgId, change)
      }
        SELECT ${sql.unsafe(ACCOUNT)} FROM account`;
      return row ? toAccount(row) : null;
    } catch (error) {
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return null;
      throw error;
    }
  }

  /**
   * The account UPDATE's conditions beyond the org id: a new hold fits and its id was never
   * settled (a reserved id is refused by the reservation's primary key), a removed hold was
   * deleted, a credit keeps the balance within 2^63 − 1, and a hold settled without removing it
   * now was reserved before.
   */
  #conditions(orgId: string, { addHold, removeHoldId, entry }: AccountChange): Fragment {
    const sql = this.#sql;
    const parts: Fragment[] = [];
    if (addHold) {
      parts.push(sql`AND balance_micro - held_micro >= ${addHold.amountMicro}
        AND NOT EXISTS (SELECT 1 FROM org_ledger WHERE org_id = ${orgId} AND hold_id = ${addHold.id})`);
    }
    if (removeHoldId !== undefined) parts.push(sql`AND EXISTS (SELECT 1 FROM removed)`);
    const amountMicro = entry?.amountMicro ?? 0n;
    if (amountMicro > 0n) parts.push(sql`AND balance_micro <= ${MAX_MICRO - amountMicro}::bigint`);
    if (entry?.holdId !== undefined && entry.holdId !== removeHoldId) {
      parts.push(sql`AND EXISTS (
        SELECT 1 FROM org_hold_reservations WHERE org_id = ${orgId} AND hold_id = ${entry.holdId})`);
    }
    return parts.reduce((all, part) => sql`${all} ${part}`, sql``);
  }

  async getHold(orgId: string, holdId: string): Promise<Hold | null> {
    const [row] = await this.#sql<HoldRow[]>`
      SELECT hold_id, amount_micro, created_at_ms, expires_at_ms FROM org_holds
      WHERE org_id = ${orgId} AND hold_id = ${holdId}`;
    return row ? toHold(row) : null;
  }

  async listHolds(orgId: string): Promise<Hold[]> {
    const rows = await this.#sql<HoldRow[]>`
      SELECT hold_id, amount_micro, created_at_ms, expires_at_ms FROM org_holds
      WHERE org_id = ${orgId} ORDER BY hold_id`;
    return rows.map(toHold);
  }

  async findReservation(orgId: string, holdId: string): Promise<Hold | null> {
    const [row] = await this.#sql<HoldRow[]>`
      SELECT hold_id, amount_micro, created_at_ms, expires_at_ms FROM org_hold_reservations
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

  /** The new hold, and its reservation (kept for good: its primary key refuses the id's reuse). */
  #holdInsert(orgId: string, { addHold }: AccountChange): Fragment {
    if (!addHold) return this.#sql``;
    const sql = this.#sql;
    const values = sql`SELECT ${orgId}, ${addHold.id}, ${addHold.amountMicro}::bigint,
      ${addHold.createdAtMs}::bigint, ${addHold.expiresAtMs}::bigint FROM account`;
    return sql`, added AS (INSERT INTO org_holds (${sql.unsafe(HOLD)}) ${values}),
      reserved AS (INSERT INTO org_hold_reservations (${sql.unsafe(HOLD)}) ${values})`;
  }

  #entryInsert(orgId: string, { entry, atMs }: AccountChange): Fragment {
    if (!entry) return this.#sql``;
    return this.#sql`, entry AS (INSERT INTO org_ledger (org_id, ${this.#sql.unsafe(LEDGER)})
      SELECT ${orgId}, version, ${atMs}::bigint, ${entry.kind}, ${entry.amountMicro}::bigint, balance_micro,
        ${entry.reference ?? null}::text, ${entry.holdId ?? null}::text FROM account)`;
  }

  #usageInsert(orgId: string, { usage, atMs }: AccountChange): Fragment {
    if (!usage) return this.#sql``;
    const metadata = this.#sql.json(usage.metadata);
    return this.#sql`, used AS (INSERT INTO org_usage (org_id, ${this.#sql.unsafe(USAGE)})
      SELECT ${orgId}, version, ${atMs}::bigint, ${usage.holdId}, ${usage.keyId}::text, ${usage.minerHotkey}::text,
        ${usage.description}, ${metadata}, ${usage.amountMicro}::bigint FROM account)`;
  }
}

function toHold(row: HoldRow): Hold {
  return {
    id: row.hold_id,
    amountMicro: row.amount_micro,
    createdAtMs: Number(row.created_at_ms),
    expiresAtMs: Number(row.expires_at_ms),
  };
}

function toEntry(row: LedgerRow): LedgerEntry {
  return {
    seq: Number(row.seq),
    atMs: Number(row.at_ms),
    kind: row.kind,
    amountMicro: row.amount_micro,
    balanceAfterMicro: row.balance_after_micro,
    reference: row.reference,
    holdId: row.hold_id,
  };
}

function toUsage(row: UsageRow): UsageRecord {
  return {
    seq: Number(row.seq),
    atMs: Number(row.at_ms),
    holdId: row.hold_id,
    keyId: row.key_id,
    minerHotkey: row.miner_hotkey,
    description: row.description,
    metadata: row.metadata,
    amountMicro: row.amount_micro,
  };
}
