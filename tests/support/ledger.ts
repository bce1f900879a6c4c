import type { BillingStore, LedgerEntry } from "../../storage/billing_store.ts";
import { ledgerSum } from "../../storage/ledger_sum.ts";
export { ledgerSum };

/**
 * Every ledger entry of `orgId`, newest first, read page by page by the storage audit `ledgerSum`
 * (one paging loop for both): its page reads are collected on the way.
 */
export async function allLedgerEntries(billing: BillingStore, orgId: string): Promise<LedgerEntry[]> {
  const entries: LedgerEntry[] = [];
  await ledgerSum({
    listLedger: async (id, page) => {
      const items = await billing.listLedger(id, page);
      entries.push(...items);
      return items;
    },
  }, orgId);
  return entries;
}
