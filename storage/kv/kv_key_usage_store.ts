import type { OrgAccount } from "../billing_store.ts";
import type { KeyUsageStore, KeyUseCount, OrgKeyUse } from "../key_usage_store.ts";
import type { StoredApiKey } from "../api_key_store.ts";
import type { OrgRecord } from "../org_store.ts";
import { keyBucket } from "../rate_limit_store.ts";
import { apiKeyKeys } from "./_api_key_keys.ts";
import { orgKeys } from "./_org_keys.ts";
import { addHits } from "./kv_rate_limit_store.ts";

/**
 * API-key uses in Deno KV: each count is ONE versionstamp-checked step on the key's rate-limit
 * window (`addHits`), guarded by the key record. The account and the org record (its default
 * miner) are read in the same snapshot but not checked by the commit (the count does not depend on
 * them, and a money commit racing it need not make it retry): the balance returned is the one at
 * the read, which came after the request arrived. Orgs and accounts are never deleted, so one read
 * present stays present.
 */
export class KvKeyUsageStore implements KeyUsageStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async count(keyId: string, use: OrgKeyUse): Promise<KeyUseCount | null> {
    const { orgId, expectedVersion, atMs, ...hits } = use;
    const added = await addHits(this.#kv, {
      ...hits,
      bucket: keyBucket(keyId),
      guard: {
        key: apiKeyKeys.record(keyId),
        stillValid: (entry) => {
          const key = entry.value as StoredApiKey | null;
          return key?.version === expectedVersion && key.orgId === orgId;
        },
      },
      onOpen: { key: apiKeyKeys.lastUsed(keyId), value: atMs },
      alsoRead: { keys: [orgKeys.account(orgId), orgKeys.org(orgId)], required: true },
    });
    if (!added) return null;
    const [account, org] = added.alsoRead as [OrgAccount, OrgRecord];
    return { count: added.count, account, defaultMinerHotkey: org.defaultMinerHotkey };
  }
}
