import type { Sql } from "postgres";
import type { KeyUsageStore, KeyUseCount, OrgKeyUse } from "../key_usage_store.ts";
import { type AccountRow, toAccount } from "./_pg_account.ts";
import { keyBucket } from "../rate_limit_store.ts";
import { isStatementBug, StatementGroups } from "./_pg_groups.ts";
import { pgArray } from "./_pg_array.ts";

interface CountedRow extends AccountRow {
  key_id: string;
  count: number;
  default_miner_hotkey: string | null;
}

interface KeyCount {
  keyId: string;
  use: OrgKeyUse;
}

/** Counts one grouped statement takes at most. */
const GROUP_MAX_KEYS = 256;
/** Grouped statements in flight at once (the counts arriving meanwhile share the next). */
const GROUPS_IN_FLIGHT = 2;

/**
 * API-key uses in PostgreSQL: each count is ONE statement step, and the counts of different keys
 * made while earlier ones are in flight share one set-based statement (`StatementGroups`). For
 * each key, the window upsert runs only if the key is stored for the org at the expected version;
 * the step that opens the window records the key's last use; the org's account and default miner
 * are read in the same statement's snapshot. One round trip per group. The windows are UNLOGGED
 * (migration 003), so a step that only counts waits for no flush.
 */
export class PgKeyUsageStore implements KeyUsageStore {
  readonly #sql: Sql<{ bigint: bigint }>;
  readonly #groups: StatementGroups<KeyCount, KeyUseCount | null>;
  readonly #groupLoneItems: boolean;

  /** With `groupLoneItems`, a lone count also takes the grouped statement (tests of that statement). */
  constructor(sql: Sql<{ bigint: bigint }>, options: { groupLoneItems?: boolean } = {}) {
    this.#sql = sql;
    this.#groupLoneItems = options.groupLoneItems ?? false;
    this.#groups = new StatementGroups({
      run: (counts) => this.#countGroup(counts),
      // One count per key in a statement: its window's row is upserted once.
      keyOf: (count) => count.keyId,
      maxSize: GROUP_MAX_KEYS,
      maxInFlight: GROUPS_IN_FLIGHT,
    });
  }

  count(keyId: string, use: OrgKeyUse): Promise<KeyUseCount | null> {
    return this.#groups.submit({ keyId, use });
  }

  /** One statement for the group; when it fails (not for a bug in it), each count in a statement of its own. */
  async #countGroup(counts: KeyCount[]): Promise<PromiseSettledResult<KeyUseCount | null>[]> {
    const alone = () => Promise.allSettled(counts.map(({ keyId, use }) => this.#countAlone(keyId, use)));
    // A lone count: the one-key statement does the same with less work.
    if (counts.length === 1 && !this.#groupLoneItems) return await alone();
    let rows: CountedRow[];
    try {
      rows = await this.#grouped(counts);
    } catch (error) {
      if (isStatementBug(error)) throw error;
      return await alone();
    }
    const byKey = new Map(rows.map((row) => [row.key_id, row]));
    return counts.map(({ keyId }) => ({ status: "fulfilled", value: counted(byKey.get(keyId)) }));
  }

  #grouped(counts: KeyCount[]): Promise<CountedRow[]> {
    const column = (pick: (count: KeyCount) => string | number) => pgArray(counts.map(pick));
    // One static text (no nested fragments): it runs on the hot path.
    return this.#sql<CountedRow[]>`
      WITH u AS (
        SELECT * FROM unnest(${column((c) => c.keyId)}::text[], ${column((c) => keyBucket(c.keyId))}::text[],
          ${column((c) => c.use.orgId)}::text[], ${column((c) => c.use.expectedVersion)}::int[],
          ${column((c) => c.use.windowStartMs)}::bigint[],
          ${column((c) => c.use.windowStartMs + c.use.windowMs)}::bigint[],
          ${column((c) => c.use.hits ?? 1)}::int[], ${
      column((c) => new Date(c.use.atMs).toISOString())
    }::timestamptz[])
        AS u(key_id, bucket, org_id, version, start_ms, end_ms, hits, used_at)),
      valid AS (
        SELECT u.* FROM u WHERE EXISTS (SELECT 1 FROM api_keys k JOIN orgs o ON o.id = k.org_id
          WHERE k.key_id = u.key_id AND k.org_id = u.org_id AND k.version = u.version)),
      counted AS (
        INSERT INTO rate_limit_windows (bucket, window_start_ms, window_end_ms, count)
        SELECT bucket, start_ms, end_ms, hits FROM valid
        ON CONFLICT (bucket, window_start_ms) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
        RETURNING bucket, count),
      joined AS (SELECT v.*, c.count FROM valid v JOIN counted c ON c.bucket = v.bucket),
      used AS (
        INSERT INTO api_key_last_used (key_id, used_at)
        SELECT key_id, used_at FROM joined WHERE count = hits
        ON CONFLICT (key_id) DO UPDATE SET used_at = GREATEST(api_key_last_used.used_at, EXCLUDED.used_at))
      SELECT j.key_id, j.count, o.balance_micro, o.held_micro, o.last_usage_at_ms, o.version,
        (SELECT m.hotkey FROM org_miners m WHERE m.org_id = o.id AND m.is_default) AS default_miner_hotkey
      FROM joined j JOIN orgs o ON o.id = j.org_id`;
  }

  async #countAlone(keyId: string, use: OrgKeyUse): Promise<KeyUseCount | null> {
    const { orgId, windowStartMs, windowMs, expectedVersion } = use;
    const hits = use.hits ?? 1;
    // The same steps as the grouped statement, for one key. The upsert is the rate-limit store's
    // (`PgRateLimitStore.hit`), guarded by the key check.
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
      SELECT ${keyId}::text AS key_id, counted.count, o.balance_micro, o.held_micro, o.last_usage_at_ms, o.version,
        (SELECT m.hotkey FROM org_miners m WHERE m.org_id = o.id AND m.is_default) AS default_miner_hotkey
      FROM counted JOIN orgs o ON o.id = ${orgId}`;
    return counted(row);
  }
}

function counted(row: CountedRow | undefined): KeyUseCount | null {
  return row
    ? { count: row.count, account: toAccount(row), defaultMinerHotkey: row.default_miner_hotkey }
    : null;
}
