import type { PendingQuery, Row, Sql } from "postgres";
import type { RateLimitStore, WindowHits } from "../rate_limit_store.ts";

/** Hits to add to one window of `bucket`; with `onlyIf` (a query), only when it returns a row. */
export interface WindowUpsert extends WindowHits {
  bucket: string;
  onlyIf?: PendingQuery<Row[]>;
}

/**
 * The one statement that counts hits (the rate-limit store and `countKeyUse` share it): creates the
 * window or adds to its count atomically (`INSERT … ON CONFLICT DO UPDATE`), returning `count`.
 * Usable alone or as a CTE.
 */
export function windowUpsert<T extends Record<string, unknown>>(
  sql: Sql<T>,
  add: WindowUpsert,
): PendingQuery<{ count: number }[]> {
  return sql`
    INSERT INTO rate_limit_windows (bucket, window_start_ms, window_end_ms, count)
    SELECT ${add.bucket}, ${add.windowStartMs}, ${add.windowStartMs + add.windowMs}, ${add.hits ?? 1}
    ${add.onlyIf ? sql`WHERE EXISTS (${add.onlyIf})` : sql``}
    ON CONFLICT (bucket, window_start_ms) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
    RETURNING count`;
}

/** Rate-limit windows in PostgreSQL: one upsert increments and returns the count atomically. */
export class PgRateLimitStore implements RateLimitStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async hit(bucket: string, at: WindowHits): Promise<number> {
    const [row] = await windowUpsert(this.#sql, { ...at, bucket });
    if (!row) throw new Error(`Cannot count rate-limit hit: ${bucket}`);
    return row.count;
  }

  async purgeEnded(nowMs: number): Promise<number> {
    const result = await this.#sql`DELETE FROM rate_limit_windows WHERE window_end_ms <= ${nowMs}`;
    return result.count;
  }
}
