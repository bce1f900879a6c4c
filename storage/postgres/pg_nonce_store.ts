import type { Sql } from "postgres";
import type { ConsumedAndCounted, ConsumeOptions, CountedHit, NonceStore } from "../nonce_store.ts";
import { useGate } from "./_pg_signed_use.ts";

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

  /**
   * The nonce upsert and the rate window's upsert (as `PgRateLimitStore.hit`) as two data-modifying
   * parts of one statement (`useGate`, as a claim or a submission makes them): one round trip, one
   * commit. Both always run to completion.
   */
  async consumeCounting(
    hotkey: string,
    nonce: string,
    { ttlMs }: ConsumeOptions,
    hit: CountedHit,
  ): Promise<ConsumedAndCounted> {
    const use = { hotkey, nonce, ttlMs, hit, maxCount: 0 };
    const [row] = await this.#sql<ConsumedAndCounted[]>`
      WITH ${useGate(this.#sql, use)} SELECT fresh, count FROM gate`;
    if (!row) throw new Error(`Cannot count rate-limit hit: ${hit.bucket}`);
    return { fresh: row.fresh, count: row.count };
  }

  async purgeExpired(): Promise<number> {
    const result = await this.#sql`DELETE FROM signature_nonces WHERE expires_at_ms <= storage_now_ms()`;
    return result.count;
  }
}
