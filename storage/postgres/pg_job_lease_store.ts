import type { Sql } from "postgres";
import type { JobLeaseStore } from "../job_lease_store.ts";

/** Job leases in PostgreSQL: one conditional upsert decides. */
export class PgJobLeaseStore implements JobLeaseStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async tryAcquire(job: string, holder: string, nowMs: number, ttlMs: number): Promise<boolean> {
    const rows = await this.#sql`
      INSERT INTO job_leases (job, holder, expires_at_ms) VALUES (${job}, ${holder}, ${nowMs + ttlMs})
      ON CONFLICT (job) DO UPDATE SET holder = EXCLUDED.holder, expires_at_ms = EXCLUDED.expires_at_ms
      WHERE job_leases.holder = EXCLUDED.holder OR job_leases.expires_at_ms <= ${nowMs}
      RETURNING job`;
    return rows.length === 1;
  }

  async release(job: string, holder: string): Promise<void> {
    await this.#sql`DELETE FROM job_leases WHERE job = ${job} AND holder = ${holder}`;
  }
}
