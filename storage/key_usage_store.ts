import type { OrgAccount } from "./billing_store.ts";
import type { WindowHits } from "./rate_limit_store.ts";

/** Uses of one of `orgId`'s API keys to count (see `KeyUsageStore.count`). */
export interface OrgKeyUse extends WindowHits {
  orgId: string;
  /** The key version the caller checked the secret against. */
  expectedVersion: number;
  /** When the first of these uses arrived (epoch ms). */
  atMs: number;
}

/** A counted use of an org's API key, with the org's account and default miner as of the same atomic step. */
export interface KeyUseCount {
  /** The window's count including the uses just added. */
  count: number;
  account: OrgAccount;
  /** The org's default miner (`OrgRecord.defaultMinerHotkey`), read with the account. */
  defaultMinerHotkey: string | null;
}

/**
 * Port for counting API-key uses, asked by each key's KeyUsageActor on every authenticated request.
 * It writes the key's rate-limit windows (the `keyBucket(keyId)` bucket of the RateLimitStore) and
 * the key's `lastUsedAt`, never the key record; it only reads the org's account and default miner, so that
 * authentication takes ONE storage round trip (PostgreSQL: one statement, shared by the counts of
 * several keys made at the same time; Deno KV: one atomic step).
 */
export interface KeyUsageStore {
  /**
   * Counts uses of one of the org's API keys and reads the org's account, in one atomic step: if
   * the key is stored for `use.orgId` at `use.expectedVersion`, adds the hits to the key's rate-limit
   * window and returns the window's count including them, with the account and the org's default
   * miner as that step saw them. Null when the key was changed (rotated, revoked), deleted or belongs to another org, or the org
   * has no account; nothing is counted then. The step that opens a window (its first hits) also
   * sets the key's `lastUsedAt` to `use.atMs`.
   */
  count(keyId: string, use: OrgKeyUse): Promise<KeyUseCount | null>;
}
