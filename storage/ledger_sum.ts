import type { BillingStore } from "./billing_store.ts";

const PAGE = 1_000;

/**
 * Σ amounts of every ledger entry of `orgId`, read page by page: an audit (tests, benchmark,
 * operators) that must always equal the stored balance.
 */
export async function ledgerSum(billing: Pick<BillingStore, "listLedger">, orgId: string): Promise<bigint> {
  let sum = 0n;
  let beforeSeq: number | undefined;
  while (true) {
    const page = await billing.listLedger(orgId, {
      limit: PAGE,
      ...(beforeSeq === undefined ? {} : { beforeSeq }),
    });
    for (const entry of page) sum += entry.amountMicro;
    if (page.length < PAGE) return sum;
    beforeSeq = page.at(-1)?.seq;
  }
}
