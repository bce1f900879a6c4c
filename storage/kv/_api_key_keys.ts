/** Deno KV keys of API keys (shared by the API-key store and the billing store, which counts their uses). */
export const apiKeyKeys = {
  record: (keyId: string): Deno.KvKey => ["api_key", keyId],
  orgIndex: (orgId: string, keyId: string): Deno.KvKey => ["api_key_by_org", orgId, keyId],
  /** `lastUsedAt` (epoch ms) lives beside the record, so counting a use never changes the record. */
  lastUsed: (keyId: string): Deno.KvKey => ["api_key_last_used", keyId],
};
