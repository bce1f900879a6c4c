import type { Sql } from "postgres";
import type { KeyUsageStore, KeyUseCount, OrgKeyUse } from "../key_usage_store.ts";
import { type AccountRow, toAccount } from "./_pg_account.ts";
import { keyBucket } from "../rate_limit_store.ts";

interface CountedRow extends AccountRow {
  count: number;
  default_miner_hotkey: string | null;
}

/**
 * API-key uses in PostgreSQL: each count is ONE statement. The window upsert runs only if the key
 * is stored for the org at the expected version; the statement that opens the window records the
 * key's last use; the org's account is read in the same statement's snapshot. One round trip.
 */
export class PgKeyUsageStore implements KeyUsageStore {
  readonly #sql: Sql<{ bigint: bigint }>;

  constructor(sql: Sql<{ bigint: bigint }>) {
    this.#sql = sql;
  }

  async count(keyId: string, use: OrgKeyUse): Promise<KeyUseCount | null> {
    const { orgId, windowStartMs, windowMs, expectedVersion } = use;
    const hits = use.hits ?? 1;
    // One static text (no nested fragments): it runs once per batch of requests on the hot path, and
    // composing fragments measurably adds to the client's work. The upsert is the rate-limit
    // store's (`PgRateLimitStore.hit`), guarded by the key check.
    const [row] = await this.#sql<CountedRow[]>`
      WITH counted AS (
        INSERT INTO rate_limit_windows (bucket, window_start_ms, window_end_ms, count)
        SELECT ${keyBucket(keyId)}, ${windowStartMs}, ${windowStartMs + windowMs}, ${hits}
        WHERE EXISTS (SELECT 1 FROM api_keys k JOIN orgs o ON o.id = k.org_id
          WHERE k.key_id = ${keyId} AND k.org_id = ${orgId} AND k.version = ${expectedVersion})
        ON CONFLICT (bucket, window_start_ms) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
        RETURNING count),
      used AS (
        INSERT INTO api_key_last_used (key_id, used_at)
        SELECT ${keyId}::text, ${new Date(use.atMs).toISOString()}::timestamptz FROM counted
        WHERE counted.count = ${hits}
        ON CONFLICT (key_id) DO UPDATE SET used_at = GREATEST(api_key_last_used.used_at, EXCLUDED.used_at))
      SELECT counted.count, o.balance_micro, o.held_micro, o.last_usage_at_ms, o.version,
        (SELECT m.hotkey FROM org_miners m WHERE m.org_id = o.id AND m.is_default) AS default_miner_hotkey
      FROM counted JOIN orgs o ON o.id = ${orgId}`;
    return row
      ? { count: row.count, account: toAccount(row), defaultMinerHotkey: row.default_miner_hotkey }
      : null;
  }
}
