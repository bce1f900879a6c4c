import type { Sql } from "postgres";
import type { RateLimitStore, WindowHits } from "../rate_limit_store.ts";

/** Rate-limit windows in PostgreSQL: one upsert increments and returns the count atomically. */
export class PgRateLimitStore implements RateLimitStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Creates the window or adds to its count atomically (`INSERT … ON CONFLICT DO UPDATE`). The
   * same upsert, guarded by a key check, counts API-key uses (`PgKeyUsageStore.count`).
   */
  async hit(bucket: string, at: WindowHits): Promise<number> {
    const { windowStartMs, windowMs } = at;
    const [row] = await this.#sql<{ count: number }[]>`
      INSERT INTO rate_limit_windows (bucket, window_start_ms, window_end_ms, count)
      VALUES (${bucket}, ${windowStartMs}, ${windowStartMs + windowMs}, ${at.hits ?? 1})
      ON CONFLICT (bucket, window_start_ms) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
      RETURNING count`;
    if (!row) throw new Error(`Cannot count rate-limit hit: ${bucket}`);
    return row.count;
  }

  async purgeEnded(nowMs: number): Promise<number> {
    const result = await this.#sql`DELETE FROM rate_limit_windows WHERE window_end_ms <= ${nowMs}`;
    return result.count;
  }
}
