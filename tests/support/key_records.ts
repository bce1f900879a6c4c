import type { ApiKeyRecord } from "../../storage/api_key_store.ts";

/** An API key record of org_a (unless overridden), as the ApiKeyActor would store it. */
export function keyRecord(keyId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    keyId,
    orgId: "org_a",
    name: "ci key",
    scopes: ["billing:read", "gateway:write"],
    rateLimitRpm: 60,
    createdAt: "2026-01-01T00:00:00.000Z",
    secretHash: "ab".repeat(32),
    ...overrides,
  };
}
