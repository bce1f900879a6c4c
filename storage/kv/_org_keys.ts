/** Deno KV keys of organisations and their billing records (shared by the two KV stores). */
export const orgKeys = {
  org: (orgId: string): Deno.KvKey => ["org", orgId],
  account: (orgId: string): Deno.KvKey => ["org_account", orgId],
  miner: (hotkey: string): Deno.KvKey => ["miner", hotkey],
  orgMiner: (orgId: string, hotkey: string): Deno.KvKey => ["org_miner", orgId, hotkey],
  orgMiners: (orgId: string): Deno.KvKey => ["org_miner", orgId],
  hold: (orgId: string, holdId: string): Deno.KvKey => ["org_hold", orgId, holdId],
  holds: (orgId: string): Deno.KvKey => ["org_hold", orgId],
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
  /** A miner's daily counter of capped holds and their charges (`BillingStore.dailySpend`). */
  dailySpend: (minerHotkey: string, day: string): Deno.KvKey => ["miner_daily_spend", minerHotkey, day],
};
