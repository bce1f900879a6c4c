import type { Fragment, Sql } from "postgres";
import type { SignedUse } from "../nonce_store.ts";

/**
 * The CTEs of a signed use (`SignedUse`), for the statement of the change it authorizes, ending in
 * `gate (fresh, count, go)`: `used` takes the nonce (inserts it, or takes over an expired row; a
 * row only then), `counted` adds the hit to the rate window, `go` says whether the change may go
 * ahead. The statement's own parts test `(SELECT go FROM gate)` before they lock or write anything,
 * so the nonce's row is locked first and everything commits (or rolls back) together: of racing
 * uses of one nonce on any connections, the primary key lets exactly one be fresh. Without a use,
 * `gate` is one constant row that lets the change go ahead.
 */
export function useGate(sql: Sql, use: SignedUse | undefined): Fragment {
  if (!use) return sql`gate AS (SELECT true AS fresh, 0 AS count, true AS go)`;
  const { bucket, windowStartMs, windowMs } = use.hit;
  return sql`used AS (
      INSERT INTO signature_nonces (hotkey, nonce, expires_at_ms)
      VALUES (${use.hotkey}, ${use.nonce}, storage_now_ms() + ${Math.ceil(use.ttlMs)}::BIGINT)
      ON CONFLICT (hotkey, nonce) DO UPDATE SET expires_at_ms = EXCLUDED.expires_at_ms
        WHERE signature_nonces.expires_at_ms <= storage_now_ms()
      RETURNING 1
    ), counted AS (
      INSERT INTO rate_limit_windows (bucket, window_start_ms, window_end_ms, count)
      VALUES (${bucket}, ${windowStartMs}, ${windowStartMs + windowMs}, ${use.hit.hits ?? 1})
      ON CONFLICT (bucket, window_start_ms) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
      RETURNING count
    ), gate AS MATERIALIZED (
      SELECT u.fresh, c.count, u.fresh AND c.count <= ${use.maxCount}::BIGINT AS go
      FROM (SELECT EXISTS (SELECT 1 FROM used) AS fresh) u CROSS JOIN counted c
    )`;
}
