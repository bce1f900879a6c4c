import type { ApiKeyRecord, ApiKeyStore, StoredApiKey } from "../api_key_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { apiKeyKeys } from "./_api_key_keys.ts";
import type { AuditEntry } from "../audit_store.ts";
import { putAudit } from "./_kv_identity_writes.ts";

const { record: keyOf, orgIndex: orgIndexOf, lastUsed: lastUsedOf } = apiKeyKeys;

/** The record as written: without `lastUsedAt`, which only counting a use sets. */
function recordOf(key: ApiKeyRecord, version: number): StoredApiKey {
  const { lastUsedAt: _lastUsed, ...record } = key;
  return { ...record, version };
}

/** The stored record with its `lastUsedAt` (as read beside it). */
function withLastUsed(record: StoredApiKey, lastUsed: Deno.KvEntryMaybe<unknown> | undefined): StoredApiKey {
  const atMs = lastUsed?.value;
  return typeof atMs === "number" ? { ...record, lastUsedAt: new Date(atMs).toISOString() } : record;
}

/**
 * API keys in Deno KV: the record under its id, an (org, key) index, and the key's last use
 * beside the record. Records change by versionstamp-checked commits.
 */
export class KvApiKeyStore implements ApiKeyStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async get(keyId: string): Promise<StoredApiKey | null> {
    const [record, lastUsed] = await this.#kv.getMany<[StoredApiKey, number]>([
      keyOf(keyId),
      lastUsedOf(keyId),
    ]);
    return record.value && withLastUsed(record.value, lastUsed);
  }

  async create(key: ApiKeyRecord, audit?: AuditEntry): Promise<StoredApiKey | null> {
    const stored = recordOf(key, 1);
    const result = await commitAtomic(() => {
      const op = this.#kv.atomic()
        .check({ key: keyOf(key.keyId), versionstamp: null })
        .set(keyOf(key.keyId), stored)
        .set(orgIndexOf(key.orgId, key.keyId), key.createdAt);
      if (audit) putAudit(op, audit);
      return op;
    });
    return result.ok ? stored : null;
  }

  async update(key: ApiKeyRecord, expectedVersion: number, audit?: AuditEntry): Promise<StoredApiKey | null> {
    const [current, lastUsed] = await this.#kv.getMany<[StoredApiKey, number]>([
      keyOf(key.keyId),
      lastUsedOf(key.keyId),
    ]);
    if (current.value?.version !== expectedVersion || current.value.orgId !== key.orgId) return null;
    const stored = recordOf(key, expectedVersion + 1);
    const result = await commitAtomic(() => {
      const op = this.#kv.atomic().check(current).set(keyOf(key.keyId), stored);
      if (audit) putAudit(op, audit);
      return op;
    });
    return result.ok ? withLastUsed(stored, lastUsed) : null;
  }

  async delete(keyId: string, expectedVersion: number): Promise<boolean> {
    const current = await this.#kv.get<StoredApiKey>(keyOf(keyId));
    if (current.value?.version !== expectedVersion) return false;
    const orgId = current.value.orgId;
    const result = await commitAtomic(() =>
      this.#kv.atomic().check(current).delete(keyOf(keyId)).delete(orgIndexOf(orgId, keyId))
        .delete(lastUsedOf(keyId))
    );
    return result.ok;
  }

  async listByOrg(orgId: string): Promise<StoredApiKey[]> {
    const ids: string[] = [];
    for await (const entry of this.#kv.list<string>({ prefix: ["api_key_by_org", orgId] })) {
      ids.push(String(entry.key[2]));
    }
    const keys: StoredApiKey[] = [];
    // getMany reads at most 10 keys: 5 ids (record and last use) per call.
    for (let start = 0; start < ids.length; start += 5) {
      const batch = ids.slice(start, start + 5).flatMap((id) => [keyOf(id), lastUsedOf(id)]);
      const entries = await this.#kv.getMany<unknown[]>(batch);
      for (let i = 0; i < entries.length; i += 2) {
        const record = entries[i]?.value as StoredApiKey | null | undefined;
        if (record) keys.push(withLastUsed(record, entries[i + 1]));
      }
    }
    return keys.toSorted((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
  }
}
