import type { Sql } from "postgres";
import type { KeyUse } from "../api_key_store.ts";
import type { KeyUseCount, OrgAccount } from "../billing_store.ts";
import { keyBucket } from "../rate_limit_store.ts";
import { windowUpsert } from "./pg_rate_limit_store.ts";

interface CountedRow {
  count: number;
  balance_micro: bigint;
  held_micro: bigint;
  last_usage_at_ms: bigint | null;
  version: bigint;
}

/**
 * `BillingStore.countKeyUse` as ONE statement: the window upsert runs only if the key is stored
 * for the org at the expected version; the statement that opens the window records the key's
 * last use; the org's account is read in the same statement's snapshot. One round trip.
 */
export async function countKeyUse(
  sql: Sql<{ bigint: bigint }>,
  orgId: string,
  keyId: string,
  use: KeyUse,
): Promise<KeyUseCount | null> {
  const hits = use.hits ?? 1;
  const current = sql`SELECT 1 FROM api_keys k JOIN orgs o ON o.id = k.org_id
    WHERE k.key_id = ${keyId} AND k.org_id = ${orgId} AND k.version = ${use.expectedVersion}`;
  // windowUpsert is typed for a plain Sql; the BIGINT-as-bigint option changes no part it uses.
  const counted = windowUpsert(sql as unknown as Sql, {
    ...use,
    hits,
    bucket: keyBucket(keyId),
    onlyIf: current,
  });
  const [row] = await sql<CountedRow[]>`
    WITH counted AS (${counted}),
    used AS (
      INSERT INTO api_key_last_used (key_id, used_at)
      SELECT ${keyId}::text, ${new Date(use.atMs).toISOString()}::timestamptz FROM counted
      WHERE counted.count = ${hits}
      ON CONFLICT (key_id) DO UPDATE SET used_at = GREATEST(api_key_last_used.used_at, EXCLUDED.used_at))
    SELECT counted.count, o.balance_micro, o.held_micro, o.last_usage_at_ms, o.version
    FROM counted JOIN orgs o ON o.id = ${orgId}`;
  return row ? { count: row.count, account: accountOf(row) } : null;
}

function accountOf(row: CountedRow): OrgAccount {
  return {
    balanceMicro: row.balance_micro,
    heldMicro: row.held_micro,
    lastUsageAtMs: row.last_usage_at_ms === null ? null : Number(row.last_usage_at_ms),
    version: Number(row.version),
  };
}
