import type { Sql } from "postgres";
import type { ConsumeOptions, NonceStore } from "../nonce_store.ts";

/**
 * Nonces in PostgreSQL: one upsert inserts the nonce, or takes over an expired row, and returns a
 * row only then; the primary key makes racing uses on any number of connections agree.
 */
export class PgNonceStore implements NonceStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async consume(hotkey: string, nonce: string, { ttlMs }: ConsumeOptions): Promise<boolean> {
    const rows = await this.#sql`
      INSERT INTO signature_nonces (hotkey, nonce, expires_at_ms)
      VALUES (${hotkey}, ${nonce}, storage_now_ms() + ${Math.ceil(ttlMs)}::BIGINT)
      ON CONFLICT (hotkey, nonce) DO UPDATE SET expires_at_ms = EXCLUDED.expires_at_ms
        WHERE signature_nonces.expires_at_ms <= storage_now_ms()
      RETURNING 1`;
    return rows.length === 1;
  }

  async purgeExpired(): Promise<number> {
    const result = await this.#sql`DELETE FROM signature_nonces WHERE expires_at_ms <= storage_now_ms()`;
    return result.count;
  }
}
