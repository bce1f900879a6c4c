import type { Sql } from "postgres";
import type { AcquireOptions, Fence, JobLeaseStore, RenewOptions } from "../job_lease_store.ts";

/**
 * Job leases in PostgreSQL: each call is one statement, and expiry is compared on the server's
 * clock (`storage_now_ms()`), so instances whose clocks disagree still agree on who holds a job.
 */
export class PgJobLeaseStore implements JobLeaseStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /** The upsert's EXCLUDED row carries the grant; `expires_at_ms - ttl` is the server's now. */
  async tryAcquire(job: string, { holder, ttlMs }: AcquireOptions): Promise<{ token: number } | null> {
    const [row] = await this.#sql<{ token: bigint }[]>`
      INSERT INTO job_leases (job, holder, token, expires_at_ms)
      VALUES (${job}, ${holder}, nextval('job_lease_tokens'), storage_now_ms() + ${ttlMs}::BIGINT)
      ON CONFLICT (job) DO UPDATE
        SET holder = EXCLUDED.holder, token = EXCLUDED.token, expires_at_ms = EXCLUDED.expires_at_ms
        WHERE job_leases.holder = EXCLUDED.holder
          OR job_leases.expires_at_ms <= EXCLUDED.expires_at_ms - ${ttlMs}::BIGINT
      RETURNING token`;
    return row ? { token: Number(row.token) } : null;
  }

  async renew(job: string, { token, ttlMs }: RenewOptions): Promise<boolean> {
    const rows = await this.#sql`
      UPDATE job_leases SET expires_at_ms = storage_now_ms() + ${ttlMs}::BIGINT
      WHERE job = ${job} AND token = ${token}
      RETURNING job`;
    return rows.length === 1;
  }

  async release(job: string, { token }: { token: number }): Promise<void> {
    await this.#sql`DELETE FROM job_leases WHERE job = ${job} AND token = ${token}`;
  }

  async checkFence({ job, token }: Fence): Promise<boolean> {
    const rows = await this.#sql`SELECT 1 FROM job_leases WHERE job = ${job} AND token = ${token}`;
    return rows.length === 1;
  }
}
