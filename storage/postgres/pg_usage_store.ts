import type { AssignmentStatus } from "../assignment_record.ts";
import type { DailyQuery, DayUsage, LeaseCalls, UsageStore } from "../usage_store.ts";
import type { BigintSql } from "./_pg_runner.ts";
import { pgArray } from "./_pg_array.ts";

interface DayRow {
  day: number;
  value: string;
  spend_micro: bigint;
  calls: bigint;
}

interface LeaseCallRow {
  miner_hotkey: string | null;
  validator: string | null;
  lease: string;
  leased_at_ms: bigint | null;
  calls: bigint;
  spend_micro: bigint;
  status: AssignmentStatus | null;
  lease_holder: string | null;
  lease_leased_at_ms: bigint | null;
  lease_expires_at_ms: bigint | null;
}

/**
 * The usage view's reads in PostgreSQL: a range of `org_usage_buckets` (written by the trigger of
 * migration 023 in each statement that inserts usage records) folded into days by one query
 * (`width_bucket` over the days' bounds), and the validator completions of a time range (the
 * partial index `org_usage_lease_calls_idx`) joined with their assignments.
 */
export class PgUsageStore implements UsageStore {
  readonly #sql: BigintSql;

  constructor(sql: BigintSql) {
    this.#sql = sql;
  }

  async daily(orgId: string, query: DailyQuery): Promise<DayUsage[]> {
    const { dimension, dayStarts } = query;
    if (dayStarts.length < 2) return [];
    const rows = await this.#sql<DayRow[]>`
      SELECT width_bucket(quarter, ${pgArray(dayStarts)}::int[]) - 1 AS day, value,
        sum(spend_micro)::bigint AS spend_micro, sum(calls)::bigint AS calls
      FROM org_usage_buckets
      WHERE org_id = ${orgId} AND dimension = ${dimension}
        AND quarter >= ${dayStarts[0]!} AND quarter < ${dayStarts.at(-1)!}
      GROUP BY 1, 2`;
    return rows.map((row) => ({
      day: row.day,
      value: row.value,
      spendMicro: row.spend_micro,
      calls: Number(row.calls),
    }));
  }

  async leaseCalls(orgId: string, range: { fromMs: number; toMs: number }): Promise<LeaseCalls[]> {
    const rows = await this.#sql<LeaseCallRow[]>`
      WITH calls AS (
        SELECT miner_hotkey, metadata ->> 'validatorHotkey' AS validator, metadata ->> 'agentPredictionId' AS lease,
          CASE WHEN jsonb_typeof(metadata -> 'leasedAtMs') = 'number'
            THEN floor((metadata ->> 'leasedAtMs')::numeric)::bigint END AS leased_at_ms,
          count(*)::bigint AS calls, sum(amount_micro)::bigint AS spend_micro
        FROM org_usage
        WHERE org_id = ${orgId} AND metadata ? 'agentPredictionId'
          AND at_ms >= ${range.fromMs} AND at_ms < ${range.toMs}
        GROUP BY 1, 2, 3, 4)
      SELECT c.*, a.status, a.lease_holder, a.leased_at_ms AS lease_leased_at_ms, a.lease_expires_at_ms
      FROM calls c LEFT JOIN assignments a ON a.id = c.lease`;
    return rows.map(toLeaseCalls);
  }
}

function toLeaseCalls(row: LeaseCallRow): LeaseCalls {
  const number = (value: bigint | null) => value === null ? null : Number(value);
  return {
    minerHotkey: row.miner_hotkey,
    validatorHotkey: row.validator,
    agentPredictionId: row.lease,
    leasedAtMs: number(row.leased_at_ms),
    calls: Number(row.calls),
    spendMicro: row.spend_micro,
    lease: row.status === null ? null : {
      status: row.status,
      validatorHotkey: row.lease_holder,
      leasedAtMs: number(row.lease_leased_at_ms),
      expiresAtMs: number(row.lease_expires_at_ms),
    },
  };
}
