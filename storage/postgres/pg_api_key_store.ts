import type { Sql, TransactionSql } from "postgres";
import type { AuditEntry } from "../audit_store.ts";
import { insertAudit } from "./_pg_identity_rows.ts";
import type { ApiKeyRecord, ApiKeyScope, ApiKeyStore, StoredApiKey } from "../api_key_store.ts";

interface KeyRow {
  key_id: string;
  org_id: string;
  name: string;
  scopes: string[];
  rate_limit_rpm: number;
  pinned_miner_hotkey: string | null;
  expires_at: Date | null;
  created_at: Date;
  revoked_at: Date | null;
  secret_hash: string;
  /** From `api_key_last_used` (migration 005); absent where a statement does not join it. */
  used_at?: Date | null;
  version: number;
}

function fromRow(row: KeyRow): StoredApiKey {
  return {
    keyId: row.key_id,
    orgId: row.org_id,
    name: row.name,
    scopes: row.scopes as ApiKeyScope[],
    rateLimitRpm: row.rate_limit_rpm,
    ...(row.pinned_miner_hotkey !== null ? { pinnedMinerHotkey: row.pinned_miner_hotkey } : {}),
    ...(row.expires_at !== null ? { expiresAt: row.expires_at.toISOString() } : {}),
    createdAt: row.created_at.toISOString(),
    ...(row.revoked_at !== null ? { revokedAt: row.revoked_at.toISOString() } : {}),
    secretHash: row.secret_hash,
    ...(row.used_at ? { lastUsedAt: row.used_at.toISOString() } : {}),
    version: row.version,
  };
}

/**
 * API keys in PostgreSQL: one row per key, changed by version-checked statements; a key's last
 * use is a row of `api_key_last_used`, written only by the statement that counts uses
 * (`PgKeyUsageStore.count`).
 */
export class PgApiKeyStore implements ApiKeyStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async get(keyId: string): Promise<StoredApiKey | null> {
    const [row] = await this.#sql<KeyRow[]>`
      SELECT k.*, u.used_at FROM api_keys k LEFT JOIN api_key_last_used u USING (key_id)
      WHERE k.key_id = ${keyId}`;
    return row ? fromRow(row) : null;
  }

  async create(key: ApiKeyRecord, audit?: AuditEntry): Promise<StoredApiKey | null> {
    if (audit) return await this.#withAudit(audit, (sql) => this.#create(sql, key));
    return await this.#create(this.#sql, key);
  }

  async #create(sql: Sql | TransactionSql, key: ApiKeyRecord): Promise<StoredApiKey | null> {
    const [row] = await sql<KeyRow[]>`
      INSERT INTO api_keys (key_id, org_id, name, scopes, rate_limit_rpm, pinned_miner_hotkey, expires_at,
        created_at, revoked_at, secret_hash, version)
      VALUES (${key.keyId}, ${key.orgId}, ${key.name}, ${key.scopes}, ${key.rateLimitRpm},
        ${key.pinnedMinerHotkey ?? null}, ${key.expiresAt ?? null}, ${key.createdAt},
        ${key.revokedAt ?? null}, ${key.secretHash}, 1)
      ON CONFLICT (key_id) DO NOTHING
      RETURNING *`;
    return row ? fromRow({ ...row, used_at: null }) : null;
  }

  async update(key: ApiKeyRecord, expectedVersion: number, audit?: AuditEntry): Promise<StoredApiKey | null> {
    if (audit) return await this.#withAudit(audit, (sql) => this.#update(sql, key, expectedVersion));
    return await this.#update(this.#sql, key, expectedVersion);
  }

  async #update(
    sql: Sql | TransactionSql,
    key: ApiKeyRecord,
    expectedVersion: number,
  ): Promise<StoredApiKey | null> {
    const [row] = await sql<KeyRow[]>`
      WITH updated AS (
        UPDATE api_keys SET name = ${key.name}, scopes = ${key.scopes}, rate_limit_rpm = ${key.rateLimitRpm},
          pinned_miner_hotkey = ${key.pinnedMinerHotkey ?? null}, expires_at = ${key.expiresAt ?? null},
          revoked_at = ${key.revokedAt ?? null}, secret_hash = ${key.secretHash}, version = version + 1
        WHERE key_id = ${key.keyId} AND org_id = ${key.orgId} AND version = ${expectedVersion}
        RETURNING *)
      SELECT updated.*, u.used_at FROM updated LEFT JOIN api_key_last_used u USING (key_id)`;
    return row ? fromRow(row) : null;
  }

  /** Runs `write` in a transaction that also inserts `audit` when it wrote the key (answered it). */
  async #withAudit(
    audit: AuditEntry,
    write: (sql: TransactionSql) => Promise<StoredApiKey | null>,
  ): Promise<StoredApiKey | null> {
    return await this.#sql.begin(async (tx) => {
      const written = await write(tx);
      if (written) await insertAudit(tx, audit);
      return written;
    }) as StoredApiKey | null;
  }

  async delete(keyId: string, expectedVersion: number): Promise<boolean> {
    const rows = await this.#sql`
      WITH deleted AS (
        DELETE FROM api_keys WHERE key_id = ${keyId} AND version = ${expectedVersion} RETURNING key_id),
      forgotten AS (DELETE FROM api_key_last_used WHERE key_id IN (SELECT key_id FROM deleted))
      SELECT key_id FROM deleted`;
    return rows.length === 1;
  }

  async listByOrg(orgId: string): Promise<StoredApiKey[]> {
    const rows = await this.#sql<KeyRow[]>`
      SELECT k.*, u.used_at FROM api_keys k LEFT JOIN api_key_last_used u USING (key_id)
      WHERE k.org_id = ${orgId} ORDER BY k.created_at, k.key_id`;
    return rows.map(fromRow);
  }
}
