/**
 * The grouped commit of `PgBillingStore`: the account changes of SEVERAL orgs (each org's changes
 * in order, all or none) in ONE statement, set-based (`unnest` of one array per column), so that
 * orgs committing at the same time share one round trip, one statement and one durable commit.
 * Only plain changes take this path (`plainBatch`: uncapped new holds, releases, settles of the
 * hold they remove); everything else, and every org this statement cannot decide, goes through
 * `commitBatch` (_pg_commit_batch.ts). Private to storage/postgres.
 *
 * How it stays exact without per-change statements: it locks the orgs' rows (in id order, so two
 * such statements never deadlock on them) and keeps only the orgs whose locked version is the one
 * its own snapshot reads. For those no commit came between the snapshot and the lock (every change
 * of an account, its holds or ledger bumps the version under that lock), so what the statement
 * reads of them is current, and each change's conditions are checked on the account as the
 * changes before it leave it: window sums give the balance and held amount after every change.
 * An org whose version moved in between, or that removes a capped hold (its daily counter moves in
 * the per-change path), is answered "retry".
 */
import type { BigintSql } from "./_pg_commit.ts";
import type { AccountChange, OrgAccount } from "../billing_store.ts";

/** One org's changes, as `commitBatch` takes them. */
export interface OrgChanges {
  orgId: string;
  changes: AccountChange[];
}

/** The account after each change; null when a condition failed; "retry" for the per-change path. */
export type GroupedOutcome = OrgAccount[] | null | "retry";

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
  const of = <T>(pick: (change: AccountChange) => T) => rows.map((row) => pick(row.change));
  return {
    orgs: rows.map((row) => row.orgId),
    idx: rows.map((row) => row.i + 1),
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
  outcome: "applied" | "retry";
  org_id: string;
  idx: number;
  balance_after: bigint | null;
  held_after: bigint | null;
  version_after: bigint | null;
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
      SELECT id, version FROM orgs WHERE id IN (SELECT org_id FROM c) ORDER BY id FOR UPDATE),
    seen AS MATERIALIZED (
      SELECT id, balance_micro, held_micro, last_usage_at_ms, version FROM orgs
      WHERE id IN (SELECT org_id FROM c)),
    current AS MATERIALIZED (
      SELECT s.* FROM seen s JOIN locked l ON l.id = s.id AND l.version = s.version),
    steps AS MATERIALIZED (
      SELECT c.*, h.hold_id IS NOT NULL AS found, h.cap_miner IS NOT NULL AS capped,
        (s.balance_micro + coalesce(sum(c.entry_amount) OVER w, 0))::bigint AS balance_after,
        (s.held_micro + sum(coalesce(c.add_amount, 0) - coalesce(h.amount_micro, 0)) OVER w)::bigint AS held_after,
        s.version + c.idx AS version_after,
        coalesce(max(CASE WHEN c.usage_amount IS NOT NULL THEN c.at_ms END) OVER w, s.last_usage_at_ms)
          AS last_usage_after
      FROM c JOIN current s ON s.id = c.org_id
        LEFT JOIN org_holds h ON h.org_id = c.org_id AND h.hold_id = c.remove_id
      WINDOW w AS (PARTITION BY c.org_id ORDER BY c.idx)),
    refused AS (
      SELECT t.org_id FROM steps t WHERE (t.remove_id IS NOT NULL AND NOT t.found)
        OR (t.add_id IS NOT NULL AND (t.balance_after < t.held_after
          OR EXISTS (SELECT 1 FROM org_hold_reservations r WHERE r.org_id = t.org_id AND r.hold_id = t.add_id)
          OR EXISTS (SELECT 1 FROM org_ledger g WHERE g.org_id = t.org_id AND g.hold_id = t.add_id)))),
    retry AS (
      SELECT id AS org_id FROM seen WHERE id NOT IN (SELECT id FROM current)
      UNION SELECT org_id FROM steps WHERE capped),
    account AS (
      UPDATE orgs o SET balance_micro = t.balance_after, held_micro = t.held_after,
        version = t.version_after, last_usage_at_ms = t.last_usage_after
      FROM (SELECT DISTINCT ON (org_id) * FROM steps
        WHERE org_id NOT IN (SELECT org_id FROM refused) AND org_id NOT IN (SELECT org_id FROM retry)
        ORDER BY org_id, idx DESC) t
      WHERE o.id = t.org_id
      RETURNING o.id),
    removed AS (
      DELETE FROM org_holds h USING steps t
      WHERE t.org_id IN (SELECT id FROM account) AND h.org_id = t.org_id AND h.hold_id = t.remove_id
      RETURNING h.org_id),
    added AS (
      INSERT INTO org_holds (org_id, hold_id, amount_micro, created_at_ms, expires_at_ms)
      SELECT org_id, add_id, add_amount, add_created, add_expires FROM steps
      WHERE add_id IS NOT NULL AND org_id IN (SELECT id FROM account)),
    reserved AS (
      INSERT INTO org_hold_reservations (org_id, hold_id, amount_micro, created_at_ms, expires_at_ms)
      SELECT org_id, add_id, add_amount, add_created, add_expires FROM steps
      WHERE add_id IS NOT NULL AND org_id IN (SELECT id FROM account)),
    entries AS (
      INSERT INTO org_ledger (org_id, seq, at_ms, kind, amount_micro, balance_after_micro, hold_id)
      SELECT org_id, version_after, at_ms, 'debit', entry_amount, balance_after, remove_id FROM steps
      WHERE entry_amount IS NOT NULL AND org_id IN (SELECT id FROM account)),
    used AS (
      INSERT INTO org_usage (org_id, seq, at_ms, hold_id, key_id, miner_hotkey, description, metadata,
        amount_micro)
      SELECT org_id, version_after, at_ms, remove_id, usage_key, usage_miner, usage_description,
        usage_metadata::jsonb, usage_amount FROM steps
      WHERE usage_amount IS NOT NULL AND org_id IN (SELECT id FROM account))
    -- Each applied org removed exactly the holds it counted, else division by zero undoes it all
    -- (it cannot differ while the org's row is locked at the version read; a guard, not a path).
    SELECT 'applied' AS outcome, t.org_id, t.idx, t.balance_after, t.held_after, t.version_after,
      t.last_usage_after, 1 / (SELECT CASE WHEN count(*) = (SELECT count(*) FROM steps x
        WHERE x.org_id = t.org_id AND x.remove_id IS NOT NULL) THEN 1 ELSE 0 END
        FROM removed r WHERE r.org_id = t.org_id) AS removed_as_counted
    FROM steps t WHERE t.org_id IN (SELECT id FROM account)
    UNION ALL
    SELECT 'retry', org_id, 0, NULL, NULL, NULL, NULL, 1 FROM retry`;
  return outcomes(entries, rows);
}

/** Each entry's outcome from the statement's rows: its accounts in change order, "retry", or null. */
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
    if (list[0]!.outcome === "retry") return "retry";
    return list.toSorted((a, b) => a.idx - b.idx).map((row) => ({
      balanceMicro: row.balance_after!,
      heldMicro: row.held_after!,
      lastUsageAtMs: row.last_usage_after === null ? null : Number(row.last_usage_after),
      version: Number(row.version_after),
    }));
  });
}
