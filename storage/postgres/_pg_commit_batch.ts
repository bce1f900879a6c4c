/**
 * The batch commit of `PgBillingStore`: several account changes of one org in ONE transaction (one
 * durable commit), each change the same statement as a single commit (`accountQuery`), so each is
 * checked against the org's row as the changes before it left it.
 */
import type { PendingQuery } from "postgres";
import { accountOf, accountQuery, isRefusal, REFUSED, requireShape } from "./_pg_commit.ts";
import type { BigintSql, Runner } from "./_pg_runner.ts";
import type { AccountRow } from "./_pg_account.ts";
import type { AccountChange, OrgAccount } from "../billing_store.ts";
import { capQueries } from "./_pg_spend_caps.ts";

/**
 * Applies `changes` to `orgId`'s account in order, all or none (`BillingStore.commitBatch`): the
 * account after each change, or null when one change's conditions did not hold (the transaction is
 * rolled back). The statements are sent together (pipelined on the transaction's connection) and
 * run in order: the first locks the org's row, so every spend counter is locked after it, as in a
 * single commit, and the batch never deadlocks with one.
 */
export async function commitBatch(
  sql: BigintSql,
  orgId: string,
  changes: AccountChange[],
): Promise<OrgAccount[] | null> {
  changes.forEach(requireShape);
  if (changes.length === 0) return [];
  try {
    return await sql.begin(async (tx) => {
      // `execute()` sends each statement now, so they go in this order.
      const lock = tx`SELECT 1 FROM orgs WHERE id = ${orgId} FOR UPDATE`.execute();
      const steps = changes.map((change) => stepQueries(tx, orgId, change));
      const [locked, ...results] = await Promise.all([lock, ...steps.map(stepResult)]);
      if (locked.length === 0 || results.some((next) => next === null)) throw REFUSED;
      return results as OrgAccount[];
    });
  } catch (error) {
    if (isRefusal(error)) return null;
    throw error;
  }
}

interface Step {
  account: PendingQuery<AccountRow[]>;
  caps: PendingQuery<{ spent_micro: bigint }[]>[];
}

/** The statements of one change, sent now: its account statement, then a new capped hold's counters. */
function stepQueries(tx: Runner, orgId: string, change: AccountChange): Step {
  const account = accountQuery(tx, orgId, change).execute();
  const caps = change.addHold?.cap ? capQueries(tx, change).map((query) => query.execute()) : [];
  return { account, caps };
}

/** The account after the step, or null when its conditions (or one of its counters' caps) did not hold. */
async function stepResult(step: Step): Promise<OrgAccount | null> {
  const [next, fits] = await Promise.all([step.account, Promise.all(step.caps)]);
  return fits.every((rows) => rows.length > 0) ? accountOf(next) : null;
}
