import { type CapName, counterParts, type SpendCounter } from "../spend_caps.ts";

/** Deno KV keys of organisations and their billing records (shared by the two KV stores). */
export const orgKeys = {
  org: (orgId: string): Deno.KvKey => ["org", orgId],
  /** The org's low-balance threshold (`OrgStore.lowBalance`), absent when none is set. */
  lowBalance: (orgId: string): Deno.KvKey => ["org_low_balance", orgId],
  account: (orgId: string): Deno.KvKey => ["org_account", orgId],
  miner: (hotkey: string): Deno.KvKey => ["miner", hotkey],
  orgMiner: (orgId: string, hotkey: string): Deno.KvKey => ["org_miner", orgId, hotkey],
  orgMiners: (orgId: string): Deno.KvKey => ["org_miner", orgId],
  hold: (orgId: string, holdId: string): Deno.KvKey => ["org_hold", orgId, holdId],
  holds: (orgId: string): Deno.KvKey => ["org_hold", orgId],
  /** The holds of every organisation. */
  allHolds: (): Deno.KvKey => ["org_hold"],
  /** Every hold id ever reserved, kept after the hold is settled, released or expired. */
  reservation: (orgId: string, holdId: string): Deno.KvKey => ["org_hold_reserved", orgId, holdId],
  holdExpiry: (expiresAtMs: number, orgId: string, holdId: string): Deno.KvKey => [
    "hold_expiry",
    expiresAtMs,
    orgId,
    holdId,
  ],
  holdExpiries: (): Deno.KvKey => ["hold_expiry"],
  ledger: (orgId: string, seq: number): Deno.KvKey => ["org_ledger", orgId, seq],
  ledgers: (orgId: string): Deno.KvKey => ["org_ledger", orgId],
  usage: (orgId: string, seq: number): Deno.KvKey => ["org_usage", orgId, seq],
  usages: (orgId: string): Deno.KvKey => ["org_usage", orgId],
  creditReference: (orgId: string, reference: string): Deno.KvKey => ["org_credit_ref", orgId, reference],
  settledHold: (orgId: string, holdId: string): Deno.KvKey => ["org_settled", orgId, holdId],
  /** A spend counter of capped holds and their charges (`BillingStore.capSpent`). */
  capSpent: (counter: SpendCounter): Deno.KvKey => [COUNTER_PREFIX[counter.cap], ...counterParts(counter)],
  /** Every spend counter of one cap. */
  capSpents: (cap: CapName): Deno.KvKey => [COUNTER_PREFIX[cap]],
  /** A usage record naming a lease (`metadata.agentPredictionId`), under the lease: its amount. */
  leaseUsage: (agentPredictionId: string, orgId: string, seq: number): Deno.KvKey => [
    "usage_by_lease",
    agentPredictionId,
    orgId,
    seq,
  ],
  leaseUsages: (agentPredictionId: string): Deno.KvKey => ["usage_by_lease", agentPredictionId],
};

/** The first part of each cap's counter keys (the daily one as it has always been stored). */
const COUNTER_PREFIX: Record<CapName, string> = {
  daily: "miner_daily_spend",
  validator: "validator_miner_spend",
  lease: "lease_llm_spend",
};
