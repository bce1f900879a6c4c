/**
 * The commit of `PgBillingStore`: ONE statement, the account `UPDATE … WHERE id = $org AND
 * <conditions>` with, as data-modifying CTEs fed by its RETURNING row, the hold and its
 * reservation, the ledger entry, the usage record and the move of a capped hold's daily counter.
 * Only a new capped hold takes two statements, in one transaction (below).
 */
import type { Fragment, PendingQuery } from "postgres";
import { ACCOUNT, type AccountRow, toAccount } from "./_pg_account.ts";
import { HOLD_COLUMNS, LEDGER, USAGE } from "./_pg_billing_rows.ts";
import {
  type AccountChange,
  type CapLimits,
  type HoldCap,
  MAX_MICRO,
  type OrgAccount,
} from "../billing_store.ts";
import { capCounters, counterLimit } from "../spend_caps.ts";
import { CAP_COLUMNS, capQueries, counterMoves } from "./_pg_spend_caps.ts";

import type { BigintSql, Runner } from "./_pg_runner.ts";

/** The columns of a hold, in `org_holds` and `org_hold_reservations` alike. */
export const HOLD = `org_id, ${HOLD_COLUMNS}`;
const UNIQUE_VIOLATION = "23505";

/** Thrown inside a transaction to undo it: the change's conditions did not hold. */
export const REFUSED = Symbol("refused");

/**
 * Applies `change` to `orgId`'s account when its conditions hold (`BillingStore.commit`); null
 * otherwise. Concurrent commits on one org queue on its row lock and each re-checks the conditions
 * on the row as the previous one left it (READ COMMITTED); unique keys refuse reused ids.
 *
 * A new capped hold also needs each of its counters to stay within its limit (`capLimits`): in
 * one transaction the account statement runs first (locking the org's row), then each counter's
 * upsert (daily, validator, lease), whose `WHERE` is evaluated on the row as the last writer left
 * it (so instances never pass a cap together); a refusal rolls everything back. Every path locks
 * the org's row before the counters', in that order, so they never deadlock.
 */
export async function commitChange(
  sql: BigintSql,
  orgId: string,
  change: AccountChange,
): Promise<OrgAccount | null> {
  requireShape(change);
  try {
    if (!change.addHold?.cap) return accountOf(await accountQuery(sql, orgId, change));
    return await sql.begin(async (tx) => {
      const next = accountOf(await accountQuery(tx, orgId, change));
      if (!next) throw REFUSED;
      for (const query of capQueries(tx, change)) {
        const [fits] = await query;
        if (!fits) throw REFUSED;
      }
      return next;
    });
  } catch (error) {
    if (isRefusal(error)) return null;
    throw error;
  }
}

/** Throws a RangeError for a change no store applies: a hold added and removed, a cap without its limit. */
export function requireShape({ addHold, removeHoldId, capLimits }: AccountChange): void {
  if (addHold && removeHoldId !== undefined) {
    throw new RangeError("Cannot add and remove a hold in one commit");
  }
  if (addHold?.cap) requireCapLimits(addHold.cap, capLimits);
}

/** True for the end of a commit whose conditions did not hold (nothing was written). */
export function isRefusal(error: unknown): boolean {
  return error === REFUSED || (error as { code?: unknown }).code === UNIQUE_VIOLATION;
}

export function accountOf(rows: AccountRow[]): OrgAccount | null {
  const [row] = rows;
  return row ? toAccount(row) : null;
}

/** The account statement of `change`: one row (the new account) when its conditions held, else none. */
export function accountQuery(sql: Runner, orgId: string, change: AccountChange): PendingQuery<AccountRow[]> {
  const { addHold, removeHoldId, entry, usage } = change;
  const removed = removeHoldId === undefined ? sql`` : sql`removed AS (
    DELETE FROM org_holds WHERE org_id = ${orgId} AND hold_id = ${removeHoldId}
    RETURNING amount_micro, ${sql.unsafe(CAP_COLUMNS)}),`;
  const held = removeHoldId === undefined
    ? sql`held_micro + ${addHold?.amountMicro ?? 0n}`
    : sql`held_micro - (SELECT amount_micro FROM removed)`;
  return sql<AccountRow[]>`
    WITH ${removed} account AS (
      UPDATE orgs SET balance_micro = balance_micro + ${entry?.amountMicro ?? 0n}, held_micro = ${held},
        version = version + 1,
        last_usage_at_ms = ${usage ? sql`${change.atMs}::bigint` : sql`last_usage_at_ms`}
      WHERE id = ${orgId} ${conditions(sql, orgId, change)}
      RETURNING ${sql.unsafe(ACCOUNT)}
    )
    ${holdInsert(sql, orgId, change)} ${entryInsert(sql, orgId, change)} ${usageInsert(sql, orgId, change)}
    ${spendMove(sql, orgId, change)}
    SELECT ${sql.unsafe(ACCOUNT)} FROM account`;
}

/**
 * The account UPDATE's conditions beyond the org id: a new hold fits and its id was never
 * settled (a reserved id is refused by the reservation's primary key), a removed hold was
 * deleted, a credit keeps the balance within 2^63 − 1, and a hold settled without removing it
 * now was reserved before.
 */
function conditions(sql: Runner, orgId: string, { addHold, removeHoldId, entry }: AccountChange): Fragment {
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

/** The new hold, and its reservation (kept for good: its primary key refuses the id's reuse). */
function holdInsert(sql: Runner, orgId: string, { addHold }: AccountChange): Fragment {
  if (!addHold) return sql``;
  const values = sql`SELECT ${orgId}, ${addHold.id}, ${addHold.amountMicro}::bigint,
    ${addHold.createdAtMs}::bigint, ${addHold.expiresAtMs}::bigint,
    ${addHold.cap?.minerHotkey ?? null}::text, ${addHold.cap?.day ?? null}::text,
    ${addHold.cap?.validatorHotkey ?? null}::text, ${
    addHold.cap?.agentPredictionId ?? null
  }::text FROM account`;
  return sql`, added AS (INSERT INTO org_holds (${sql.unsafe(HOLD)}) ${values}),
    reserved AS (INSERT INTO org_hold_reservations (${sql.unsafe(HOLD)}) ${values})`;
}

function entryInsert(sql: Runner, orgId: string, { entry, atMs }: AccountChange): Fragment {
  if (!entry) return sql``;
  return sql`, entry AS (INSERT INTO org_ledger (org_id, ${sql.unsafe(LEDGER)})
    SELECT ${orgId}, version, ${atMs}::bigint, ${entry.kind}, ${entry.amountMicro}::bigint, balance_micro,
      ${entry.reference ?? null}::text, ${entry.holdId ?? null}::text FROM account)`;
}

function usageInsert(sql: Runner, orgId: string, { usage, atMs }: AccountChange): Fragment {
  if (!usage) return sql``;
  const metadata = sql.json(usage.metadata);
  return sql`, used AS (INSERT INTO org_usage (org_id, ${sql.unsafe(USAGE)})
    SELECT ${orgId}, version, ${atMs}::bigint, ${usage.holdId}, ${usage.keyId}::text, ${usage.minerHotkey}::text,
      ${usage.description}, ${metadata}, ${usage.amountMicro}::bigint FROM account)`;
}

/**
 * The spend counters' moves when the change removes or settles a capped hold (`capDelta`): the
 * removed hold's amount off, the settled cost on; for a late settle (the hold released or expired
 * before) the cost, on the counters its reservation names. Nothing for an uncapped hold, and
 * nothing unless the account's conditions held.
 */
function spendMove(sql: Runner, orgId: string, { removeHoldId, entry }: AccountChange): Fragment {
  const cost = entry?.kind === "debit" && entry.holdId !== undefined ? -entry.amountMicro : null;
  const caps = sql.unsafe(CAP_COLUMNS);
  let source: Fragment;
  if (removeHoldId !== undefined) {
    source = sql`SELECT ${caps}, ${cost ?? 0n}::bigint - amount_micro AS delta FROM removed`;
  } else if (cost !== null) {
    source = sql`SELECT ${caps}, ${cost}::bigint AS delta FROM org_hold_reservations
      WHERE org_id = ${orgId} AND hold_id = ${entry!.holdId!}`;
  } else {
    return sql``;
  }
  return sql`, moved AS (SELECT * FROM (${source}) AS s WHERE EXISTS (SELECT 1 FROM account))
    ${counterMoves(sql, "moved", { grouped: false })}`;
}

/** A RangeError unless `limits` names a limit for each counter of `cap`. */
function requireCapLimits(cap: HoldCap, limits: CapLimits | undefined): void {
  if (!limits) throw new RangeError("A capped hold needs capLimits");
  for (const counter of capCounters(cap)) counterLimit(counter, limits);
}
