/**
 * The grouped commit of `PgBillingStore`: the account changes of SEVERAL orgs (each org's changes
 * in order, all or none) in ONE statement, set-based (`unnest` of one array per column), so that
 * orgs committing at the same time share one round trip, one statement and one durable commit.
 * Only plain changes take this path (`plainBatch`: uncapped new holds, releases, settles of the
 * hold they remove); everything else goes through `commitBatch` (_pg_commit_batch.ts), and so
 * does every org of a group whose statement failed. Private to storage/postgres.
 *
 * How it keeps every condition of the per-change path: it locks the orgs' rows first, in id order
 * (two such statements never deadlock on them), then the rows of the holds the changes remove (a
 * hold another commit removed first is not found), both as the latest commit left them. The
 * account `UPDATE` then applies each org's changes at once, under conditions PostgreSQL rechecks
 * on the row as the lock found it: every removed hold was found, no new hold id was reserved or
 * settled before, and the available amount covers `need`, the most any new hold asks beyond what
 * the changes before it freed (window sums in change order); so each new hold fits where it
 * stands, as if committed alone. Only then are the found holds of the applied orgs deleted and the
 * new rows written; an org refused there writes nothing and the others still apply. A removed
 * capped hold moves its spend counters in the same statement.
 */
import type { BigintSql } from "./_pg_runner.ts";
import type { AccountChange, OrgAccount } from "../billing_store.ts";
import { pgArray } from "./_pg_array.ts";
import { CAP_COLUMNS, counterMoves } from "./_pg_spend_caps.ts";

/** One org's changes, as `commitBatch` takes them. */
export interface OrgChanges {
  orgId: string;
  changes: AccountChange[];
}

/** The account after each change, or null when a condition failed (nothing written). */
export type GroupedOutcome = OrgAccount[] | null;

/** The kind of a change the grouped statement takes, or null. */
function plainKind(change: AccountChange): "reserve" | "release" | "settle" | null {
  const { addHold, removeHoldId, entry, usage } = change;
  if (addHold) return !addHold.cap && removeHoldId === undefined && !entry && !usage ? "reserve" : null;
  if (removeHoldId === undefined) return null;
  if (!entry) return usage ? null : "release";
  const settles = entry.kind === "debit" && entry.holdId === removeHoldId && entry.reference === undefined &&
    entry.amountMicro <= 0n;
  return settles && (!usage || usage.holdId === removeHoldId) ? "settle" : null;
}

/**
 * True when the grouped statement decides `changes` exactly as the per-change path would: every
 * change plain, and no hold id added twice, removed twice, or added and removed (the statement
 * reads holds as they were before the batch).
 */
export function plainBatch(changes: AccountChange[]): boolean {
  if (!changes.every((change) => plainKind(change) !== null)) return false;
  const added = changes.flatMap((change) => change.addHold ? [change.addHold.id] : []);
  const removed = changes.flatMap((change) => change.removeHoldId === undefined ? [] : [change.removeHoldId]);
  const ids = new Set([...added, ...removed]);
  return ids.size === added.length + removed.length;
}

/** The statement's parameters: one array per column, one element per change of every org. */
function columns(entries: OrgChanges[]) {
  const rows = entries.flatMap(({ orgId, changes }) => changes.map((change, i) => ({ orgId, i, change })));
  const text = (value: bigint | number | undefined) => value === undefined ? null : String(value);
  // Each column as an array literal (_pg_array.ts).
  const of = (pick: (change: AccountChange) => string | null) => pgArray(rows.map((row) => pick(row.change)));
  return {
    orgs: pgArray(rows.map((row) => row.orgId)),
    idx: pgArray(rows.map((row) => row.i + 1)),
    at: of((change) => String(change.atMs)),
    addId: of((change) => change.addHold?.id ?? null),
    addAmount: of((change) => text(change.addHold?.amountMicro)),
    addCreated: of((change) => text(change.addHold?.createdAtMs)),
    addExpires: of((change) => text(change.addHold?.expiresAtMs)),
    removeId: of((change) => change.removeHoldId ?? null),
    entryAmount: of((change) => text(change.entry?.amountMicro)),
    usageKey: of((change) => change.usage?.keyId ?? null),
    usageMiner: of((change) => change.usage?.minerHotkey ?? null),
    usageDescription: of((change) => change.usage?.description ?? null),
    usageMetadata: of((change) => change.usage ? JSON.stringify(change.usage.metadata) : null),
    usageAmount: of((change) => text(change.usage?.amountMicro)),
  };
}

interface OutcomeRow {
  org_id: string;
  idx: number;
  balance_after: bigint;
  held_after: bigint;
  version_after: bigint;
  last_usage_after: bigint | null;
}

/** Commits `entries` (distinct orgs, `plainBatch` changes) in one statement; one outcome per entry. */
export async function groupedCommit(sql: BigintSql, entries: OrgChanges[]): Promise<GroupedOutcome[]> {
  const col = columns(entries);
  const rows = await sql<OutcomeRow[]>`
    WITH c AS (
      SELECT * FROM unnest(${col.orgs}::text[], ${col.idx}::int[], ${col.at}::bigint[], ${col.addId}::text[],
        ${col.addAmount}::bigint[], ${col.addCreated}::bigint[], ${col.addExpires}::bigint[],
        ${col.removeId}::text[], ${col.entryAmount}::bigint[], ${col.usageKey}::text[],
        ${col.usageMiner}::text[], ${col.usageDescription}::text[], ${col.usageMetadata}::text[],
        ${col.usageAmount}::bigint[])
      AS c(org_id, idx, at_ms, add_id, add_amount, add_created, add_expires, remove_id, entry_amount,
        usage_key, usage_miner, usage_description, usage_metadata, usage_amount)),
    locked AS MATERIALIZED (
      SELECT id, last_usage_at_ms FROM orgs WHERE id IN (SELECT org_id FROM c) ORDER BY id FOR UPDATE),
    held AS MATERIALIZED (
      SELECT h.org_id, h.hold_id, h.amount_micro, h.cap_miner, h.cap_day, h.cap_validator, h.cap_lease,
        c.entry_amount
      FROM c CROSS JOIN LATERAL (
        SELECT * FROM org_holds h WHERE h.org_id = c.org_id AND h.hold_id = c.remove_id
          AND h.org_id IN (SELECT id FROM locked) LIMIT 1 FOR UPDATE) h),
    steps AS MATERIALIZED (
      SELECT c.*, coalesce(x.amount_micro, 0) AS removed_amount,
        c.remove_id IS NULL OR x.hold_id IS NOT NULL AS found,
        -- what the change adds to the available amount (balance - held)
        coalesce(c.entry_amount, 0) - coalesce(c.add_amount, 0) + coalesce(x.amount_micro, 0) AS gain
      FROM c LEFT JOIN held x ON x.org_id = c.org_id AND x.hold_id = c.remove_id),
    sums AS MATERIALIZED (
      SELECT t.*,
        coalesce(sum(t.gain) OVER (PARTITION BY t.org_id ORDER BY t.idx
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::bigint AS gain_before,
        (sum(coalesce(t.entry_amount, 0)) OVER (PARTITION BY t.org_id ORDER BY t.idx))::bigint AS entries_upto,
        (sum(coalesce(t.add_amount, 0) - t.removed_amount) OVER (PARTITION BY t.org_id ORDER BY t.idx))::bigint
          AS held_upto,
        max(CASE WHEN t.usage_amount IS NOT NULL THEN t.idx END) OVER (PARTITION BY t.org_id ORDER BY t.idx)
          AS usage_idx_upto
      FROM steps t),
    plan AS (
      SELECT org_id, count(*) AS n, bool_and(found) AS found, max(add_amount - gain_before) AS need,
        sum(coalesce(entry_amount, 0))::bigint AS balance_delta,
        sum(coalesce(add_amount, 0) - removed_amount)::bigint AS held_delta,
        (array_agg(at_ms ORDER BY idx DESC) FILTER (WHERE usage_amount IS NOT NULL))[1] AS usage_at
      FROM sums GROUP BY org_id),
    -- One index probe per new hold (a LATERAL with LIMIT is never flattened): written as two
    -- EXISTS under OR, PostgreSQL chose a hashed subplan, a scan of both whole tables per statement.
    clash AS (
      SELECT c.org_id FROM c CROSS JOIN LATERAL (
        (SELECT 1 FROM org_hold_reservations x WHERE x.org_id = c.org_id AND x.hold_id = c.add_id)
        UNION ALL (SELECT 1 FROM org_ledger g WHERE g.org_id = c.org_id AND g.hold_id = c.add_id)
        LIMIT 1) hit
      WHERE c.add_id IS NOT NULL),
    account AS (
      UPDATE orgs o SET balance_micro = o.balance_micro + p.balance_delta,
        held_micro = o.held_micro + p.held_delta, version = o.version + p.n,
        last_usage_at_ms = coalesce(p.usage_at, o.last_usage_at_ms)
      -- Joined to locked, so that each row is locked (in id order) before it is updated.
      FROM plan p JOIN locked l ON l.id = p.org_id
      WHERE o.id = p.org_id AND p.found AND p.org_id NOT IN (SELECT org_id FROM clash)
        AND (p.need IS NULL OR o.balance_micro - o.held_micro >= p.need)
      RETURNING o.id, o.balance_micro - p.balance_delta AS balance_before,
        o.held_micro - p.held_delta AS held_before, o.version - p.n AS version_before),
    removed AS (
      DELETE FROM org_holds h USING held x
      WHERE x.org_id IN (SELECT id FROM account) AND h.org_id = x.org_id AND h.hold_id = x.hold_id
      RETURNING h.org_id, h.hold_id),
    added AS (
      INSERT INTO org_holds (org_id, hold_id, amount_micro, created_at_ms, expires_at_ms)
      SELECT org_id, add_id, add_amount, add_created, add_expires FROM c
      WHERE add_id IS NOT NULL AND org_id IN (SELECT id FROM account)),
    reserved AS (
      INSERT INTO org_hold_reservations (org_id, hold_id, amount_micro, created_at_ms, expires_at_ms)
      SELECT org_id, add_id, add_amount, add_created, add_expires FROM c
      WHERE add_id IS NOT NULL AND org_id IN (SELECT id FROM account)),
    entries AS (
      INSERT INTO org_ledger (org_id, seq, at_ms, kind, amount_micro, balance_after_micro, hold_id)
      SELECT t.org_id, a.version_before + t.idx, t.at_ms, 'debit', t.entry_amount,
        a.balance_before + t.entries_upto, t.remove_id
      FROM sums t JOIN account a ON a.id = t.org_id WHERE t.entry_amount IS NOT NULL),
    used AS (
      INSERT INTO org_usage (org_id, seq, at_ms, hold_id, key_id, miner_hotkey, description, metadata,
        amount_micro)
      SELECT t.org_id, a.version_before + t.idx, t.at_ms, t.remove_id, t.usage_key, t.usage_miner,
        t.usage_description, t.usage_metadata::jsonb, t.usage_amount
      FROM sums t JOIN account a ON a.id = t.org_id WHERE t.usage_amount IS NOT NULL),
    moved AS (
      SELECT ${sql.unsafe(CAP_COLUMNS)}, -coalesce(entry_amount, 0) - amount_micro AS delta FROM held
      WHERE cap_miner IS NOT NULL AND org_id IN (SELECT id FROM account))
    ${counterMoves(sql, "moved", { grouped: true })}
    SELECT t.org_id, t.idx, a.balance_before + t.entries_upto AS balance_after,
      a.held_before + t.held_upto AS held_after, a.version_before + t.idx AS version_after,
      coalesce((SELECT u.at_ms FROM sums u WHERE u.org_id = t.org_id AND u.idx = t.usage_idx_upto),
        l.last_usage_at_ms) AS last_usage_after
    FROM sums t JOIN account a ON a.id = t.org_id JOIN locked l ON l.id = t.org_id
    UNION ALL
    -- A guard, not a path: a locked hold of an applied org that was not deleted undoes everything
    -- (division by zero; it cannot happen while the statement holds the hold's row lock). This
    -- branch is always run to its end, and returns no row.
    SELECT x.org_id, 0, 0, 0, 0, NULL FROM held x
    WHERE 1 / (CASE WHEN x.org_id NOT IN (SELECT id FROM account)
      OR EXISTS (SELECT 1 FROM removed r WHERE r.org_id = x.org_id AND r.hold_id = x.hold_id)
      THEN 1 ELSE 0 END) = 0`;
  return outcomes(entries, rows);
}

/** Each entry's outcome from the statement's rows: its accounts in change order, or null. */
function outcomes(entries: OrgChanges[], rows: OutcomeRow[]): GroupedOutcome[] {
  const byOrg = new Map<string, OutcomeRow[]>();
  for (const row of rows) {
    const list = byOrg.get(row.org_id);
    if (list) list.push(row);
    else byOrg.set(row.org_id, [row]);
  }
  return entries.map(({ orgId }) => {
    const list = byOrg.get(orgId);
    if (!list) return null;
    return list.toSorted((a, b) => a.idx - b.idx).map((row) => ({
      balanceMicro: row.balance_after,
      heldMicro: row.held_after,
      lastUsageAtMs: row.last_usage_after === null ? null : Number(row.last_usage_after),
      version: Number(row.version_after),
    }));
  });
}
