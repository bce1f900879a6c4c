import type { Sql } from "postgres";
import type { SettingStore } from "../setting_store.ts";

/** Settings in PostgreSQL: the first writer wins. */
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
}
