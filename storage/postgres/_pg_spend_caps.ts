/**
 * The spend counters of capped holds in PostgreSQL (docs/billing.md, "Spend caps of validator
 * completions"): one table per cap, keyed by the counter's parts, and the columns of a hold that
 * name them (migrations 014 and 021; the lease counter's day, 024). Every statement that changes
 * holds builds its counter moves here, so the three caps move alike. Private to storage/postgres.
 */
import type { Fragment, PendingQuery } from "postgres";
import type { AccountChange } from "../billing_store.ts";
import {
  CAP_NAMES,
  capCounters,
  type CapName,
  counterLimit,
  counterParts,
  type SpendCounter,
} from "../spend_caps.ts";
import type { Runner } from "./_pg_runner.ts";

export interface CounterTable {
  table: string;
  /** The table's key columns, in the order of `counterParts`. */
  keys: string;
  /** The hold's columns holding those parts, in the same order; the first is null for a hold without this cap. */
  holdColumns: string;
  /**
   * True for the lease's counter, whose `day` column is not part of its key: the latest UTC day of
   * a hold that named it (migration 024), what its purge goes by. The other counters' day is their key's.
   */
  dated: boolean;
}

/** Each cap's table, in the order holds lock them: daily, validator, lease. */
export const TABLES: Record<CapName, CounterTable> = {
  daily: {
    table: "miner_daily_spend",
    keys: "miner_hotkey, day",
    holdColumns: "cap_miner, cap_day",
    dated: false,
  },
  validator: {
    table: "validator_miner_daily_spend",
    keys: "validator_hotkey, miner_hotkey, day",
    holdColumns: "cap_validator, cap_miner, cap_day",
    dated: false,
  },
  lease: { table: "lease_llm_spend", keys: "agent_prediction_id", holdColumns: "cap_lease", dated: true },
};

/** The cap columns of a hold row, as selected or returned. */
export const CAP_COLUMNS = "cap_miner, cap_day, cap_validator, cap_lease";

/** The counter's value (0 when it has no row). */
export async function readCounter(sql: Runner, counter: SpendCounter): Promise<bigint> {
  const { table, keys } = TABLES[counter.cap];
  const [row] = await sql<{ spent_micro: bigint }[]>`
    SELECT spent_micro FROM ${sql.unsafe(table)}
    WHERE (${sql.unsafe(keys)}) = (${textList(sql, counterParts(counter))})`;
  return row?.spent_micro ?? 0n;
}

/**
 * The upserts of a new capped hold's counters, in lock order: each answers a row only if its
 * counter plus the hold stays within its limit. The `WHERE` of each is evaluated on the row as the
 * last writer left it, so instances never pass a cap together.
 */
export function capQueries(sql: Runner, change: AccountChange): PendingQuery<{ spent_micro: bigint }[]>[] {
  const { cap, amountMicro } = change.addHold!;
  return capCounters(cap!).map((counter) => {
    const limit = counterLimit(counter, change.capLimits!);
    const { table, keys, dated } = TABLES[counter.cap];
    const name = sql.unsafe(table);
    const parts = dated ? [...counterParts(counter), cap!.day] : counterParts(counter);
    return sql<{ spent_micro: bigint }[]>`
      INSERT INTO ${name} (${sql.unsafe(keys)}${sql.unsafe(dated ? ", day" : "")}, spent_micro)
      SELECT ${textList(sql, parts)}, ${amountMicro}::bigint
      WHERE ${amountMicro}::bigint <= ${limit}::bigint
      ON CONFLICT (${sql.unsafe(keys)}) DO UPDATE SET spent_micro = ${name}.spent_micro + EXCLUDED.spent_micro
        ${sql.unsafe(laterDay(table, dated))}
        WHERE ${name}.spent_micro + EXCLUDED.spent_micro <= ${limit}::bigint
      RETURNING spent_micro`;
  });
}

/**
 * Data-modifying CTEs (each starting with a comma) that add to every counter a row of `source`
 * names: `source` is a CTE with the `CAP_COLUMNS` and a `delta` column. With `grouped`, the rows
 * naming one counter are summed first (one upsert per counter and statement).
 */
export function counterMoves(sql: Runner, source: string, options: { grouped: boolean }): Fragment {
  return CAP_NAMES.map((cap) => {
    const { table, keys, holdColumns, dated } = TABLES[cap];
    const first = holdColumns.split(",")[0]!;
    const delta = options.grouped ? "sum(delta)::bigint" : "delta";
    const day = !dated ? "" : options.grouped ? ", max(cap_day)" : ", cap_day";
    const group = options.grouped ? ` GROUP BY ${holdColumns} ORDER BY ${holdColumns}` : "";
    return sql.unsafe(`, spend_${cap} AS (INSERT INTO ${table} (${keys}${dated ? ", day" : ""}, spent_micro)
      SELECT ${holdColumns}${day}, ${delta} FROM ${source} WHERE ${first} IS NOT NULL${group}
      ON CONFLICT (${keys}) DO UPDATE SET spent_micro = ${table}.spent_micro + EXCLUDED.spent_micro
        ${laterDay(table, dated)})`);
  }).reduce((all, part) => sql`${all} ${part}`, sql``);
}

/** A dated counter's upsert keeps the later of its day and the hold's (`YYYY-MM-DD` sorts as text). */
function laterDay(table: string, dated: boolean): string {
  return dated ? `, day = GREATEST(${table}.day, EXCLUDED.day)` : "";
}

/** `$1::text, $2::text, …`: the parts of a counter as parameters. */
function textList(sql: Runner, parts: string[]): Fragment {
  return parts.map((part) => sql`${part}::text`).reduce((all, part, i) =>
    i === 0 ? part : sql`${all}, ${part}`
  );
}
