import type { OrgAccount } from "../billing_store.ts";

/** The account columns of `orgs`, as selected or returned. */
export const ACCOUNT = "balance_micro, held_micro, last_usage_at_ms, version";

/** A row holding the `ACCOUNT` columns (BIGINT read as `bigint`). */
export interface AccountRow {
  balance_micro: bigint;
  held_micro: bigint;
  last_usage_at_ms: bigint | null;
  version: bigint;
}

export function toAccount(row: AccountRow): OrgAccount {
  return {
    balanceMicro: row.balance_micro,
    heldMicro: row.held_micro,
    lastUsageAtMs: row.last_usage_at_ms === null ? null : Number(row.last_usage_at_ms),
    version: Number(row.version),
  };
}
