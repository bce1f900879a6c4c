import type { AuditEntry } from "./audit_store.ts";
/** The scopes an API key can carry (docs/api_keys.md, "Keys"); nothing else is accepted. */
export const API_KEY_SCOPES = [
  "gateway:write",
  "predictions:read",
  "predictions:write",
  "history:read",
  "billing:read",
] as const;

export type ApiKeyScope = typeof API_KEY_SCOPES[number];

/** An API key as stored: never the secret itself, only its SHA-256 (lowercase hex). */
/** What the admin chooses when issuing a key. */
export interface ApiKeyTerms {
  orgId: string;
  name: string;
  scopes: ApiKeyScope[];
  rateLimitRpm: number;
  pinnedMinerHotkey?: string;
  /** ISO 8601 instant after which the key fails. */
  expiresAt?: string;
}

export interface ApiKeyRecord extends ApiKeyTerms {
  keyId: string;
  createdAt: string;
  revokedAt?: string;
  /** Lowercase hex SHA-256 of the secret part of the key. */
  secretHash: string;
  /**
   * Read-only: when the key was first used in the latest rate-limit window that counted a use
   * (so at most one change per key per window). Kept beside the record by `KeyUsageStore.count`, never in
   * it: using a key does not change the record or its version. `create` and `update` ignore it.
   */
  lastUsedAt?: string;
}

/** A stored key with its version. Every change that affects validity (rotate, revoke) bumps the version. */
export interface StoredApiKey extends ApiKeyRecord {
  version: number;
}

/** An API key as the admin API lists it: everything but the secret hash. */
export type ApiKeySummary = Omit<ApiKeyRecord, "secretHash">;

/** Drops the secret hash and the version (for listings and responses). */
export function summarizeApiKey(key: ApiKeyRecord | StoredApiKey): ApiKeySummary {
  const { secretHash: _hash, version: _version, ...summary } = key as StoredApiKey;
  return { ...summary, scopes: [...summary.scopes] };
}

/**
 * Port for API keys. Keys are written only by their ApiKeyActor; the auth path only reads them
 * (their uses are counted by the key's KeyUsageActor through `KeyUsageStore.count`, which writes
 * the rate-limit window and `lastUsedAt`, never the key).
 */
export interface ApiKeyStore {
  get(keyId: string): Promise<StoredApiKey | null>;
  /**
   * Stores a new key (version 1); returns null when `keyId` is taken. `audit`, when given, is
   * written in the same atomic write (a key a member makes in the dashboard).
   */
  create(key: ApiKeyRecord, audit?: AuditEntry): Promise<StoredApiKey | null>;
  /**
   * Replaces the key if its stored version is still `expectedVersion`; null when the condition was
   * lost. `audit`, when given, is written in the same atomic write, only when the key is.
   */
  update(key: ApiKeyRecord, expectedVersion: number, audit?: AuditEntry): Promise<StoredApiKey | null>;
  /** Deletes the key if its stored version is still `expectedVersion`; false when the condition was lost. */
  delete(keyId: string, expectedVersion: number): Promise<boolean>;
  /** Every key of `orgId` (revoked ones included), oldest first. */
  listByOrg(orgId: string): Promise<StoredApiKey[]>;
}
