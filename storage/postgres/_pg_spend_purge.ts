/**
 * The purge of spend counters in PostgreSQL (`BillingStore.purgeSpendCounters`, docs/billing.md
 * "Purge of spend counters"): per cap table, from the oldest day, one DELETE of at most the step's
 * limit of counters dated before its day that no stored hold names. Private to storage/postgres.
 */
import { CAP_NAMES, type CapName, type SpendPurgePage, type SpendPurgeStep } from "../spend_caps.ts";
import type { Runner } from "./_pg_runner.ts";
import { type CounterTable, TABLES } from "./_pg_spend_caps.ts";

/**
 * Deletes up to `page.limit` purgeable counters, the daily ones first, then the validator and the
 * lease ones. `next` is the cap whose table may hold more (a table is read by its day index, so
 * no finer position is needed: what is left there is what was not purgeable).
 */
export async function purgeCounters(sql: Runner, page: SpendPurgePage): Promise<SpendPurgeStep> {
  if (!Number.isSafeInteger(page.limit) || page.limit < 1) {
    throw new RangeError(`Cannot purge spend counters: limit must be a positive integer, not ${page.limit}`);
  }
  let purged = 0;
  for (const cap of CAP_NAMES.slice(startOf(page.after))) {
    const limit = page.limit - purged;
    const deleted = await purgeTable(sql, TABLES[cap], { beforeDay: page.beforeDay, limit });
    purged += deleted;
    if (deleted === limit) return { purged, next: cap };
  }
  return { purged, next: null };
}

/** Where a step starts: the table `after` names (a `next` of this adapter), or the first. */
function startOf(after: string | undefined): number {
  if (after === undefined) return 0;
  const index = CAP_NAMES.indexOf(after as CapName);
  if (index < 0) throw new RangeError(`Cannot purge spend counters: not a position of this store: ${after}`);
  return index;
}

/**
 * One DELETE: the oldest `limit` counters of the table dated before `beforeDay` that no stored hold
 * names. The conditions are repeated on the deleted row: a commit that moved the row meanwhile
 * (which waits on, or makes the DELETE wait on, the row's lock) is seen, so a lease counter a new
 * hold has just dated today is kept.
 */
async function purgeTable(
  sql: Runner,
  { table, keys, holdColumns }: CounterTable,
  options: { beforeDay: string; limit: number },
): Promise<number> {
  const { beforeDay, limit } = options;
  const named = (alias: string) =>
    `NOT EXISTS (SELECT 1 FROM org_holds h WHERE (${qualified("h", holdColumns)}) = (${
      qualified(alias, keys)
    }))`;
  const [row] = await sql<{ n: number }[]>`
    WITH gone AS (
      DELETE FROM ${sql.unsafe(table)} t
      WHERE (${sql.unsafe(qualified("t", keys))}) IN (
          SELECT ${sql.unsafe(qualified("c", keys))} FROM ${sql.unsafe(table)} c
          WHERE c.day < ${beforeDay} AND ${sql.unsafe(named("c"))}
          ORDER BY c.day LIMIT ${limit})
        AND t.day < ${beforeDay} AND ${sql.unsafe(named("t"))}
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`;
  return row?.n ?? 0;
}

/** `a, b` as `alias.a, alias.b`. */
function qualified(alias: string, columns: string): string {
  return columns.split(",").map((column) => `${alias}.${column.trim()}`).join(", ");
}
