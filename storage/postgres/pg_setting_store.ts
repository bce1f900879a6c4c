import type { Sql } from "postgres";
import type { Fence } from "../job_lease_store.ts";
import type { SettingStore } from "../setting_store.ts";

/** Settings in PostgreSQL: the first writer wins, except for fenced writes. */
export class PgSettingStore implements SettingStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async get(name: string): Promise<string | null> {
    const [row] = await this.#sql<{ value: string }[]>`SELECT value FROM settings WHERE name = ${name}`;
    return row?.value ?? null;
  }

  async getOrCreate(name: string, candidate: string): Promise<string> {
    await this.#sql`INSERT INTO settings (name, value) VALUES (${name}, ${candidate})
      ON CONFLICT (name) DO NOTHING`;
    const [row] = await this.#sql<{ value: string }[]>`SELECT value FROM settings WHERE name = ${name}`;
    if (!row) throw new Error(`Cannot read setting: ${name}`);
    return row.value;
  }

  /**
   * One statement: the lease row is read FOR SHARE, so a takeover (which updates that row) waits
   * until this write commits, and a takeover committed first leaves no matching row (no write).
   */
  async putFenced(name: string, { value, fence }: { value: string; fence: Fence }): Promise<boolean> {
    const rows = await this.#sql`
      WITH fence AS (
        SELECT 1 FROM job_leases WHERE job = ${fence.job} AND token = ${fence.token} FOR SHARE
      )
      INSERT INTO settings (name, value) SELECT ${name}::TEXT, ${value}::TEXT FROM fence
      ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value
      RETURNING name`;
    return rows.length === 1;
  }
}
