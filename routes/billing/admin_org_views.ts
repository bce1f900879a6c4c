import { isoAt } from "../../actors/kernel/mod.ts";
import type { BalanceReply, OrgView } from "../../actors/billing/mod.ts";
import type { LedgerEntry, UsageRecord } from "../../storage/billing_store.ts";

/** Money as decimal strings; timestamps ISO 8601 (DESIGN §2). */
export function balanceJson(balance: BalanceReply) {
  return {
    balanceMicro: balance.balanceMicro.toString(),
    heldMicro: balance.heldMicro.toString(),
    availableMicro: balance.availableMicro.toString(),
    lastUsageAt: balance.lastUsageAt,
  };
}

/** An organisation as the admin API shows it; `keys` come from the API-key area, without secrets. */
export function orgJson(view: OrgView, keys?: readonly unknown[]) {
  const { org } = view;
  return {
    id: org.id,
    name: org.name,
    createdAt: isoAt(org.createdAtMs),
    ...balanceJson(view.balance),
    defaultMinerHotkey: org.defaultMinerHotkey,
    miners: view.miners.map((miner) => ({
      hotkey: miner.hotkey,
      registeredAt: isoAt(miner.registeredAtMs),
      default: miner.hotkey === org.defaultMinerHotkey,
    })),
    ...(keys ? { keys } : {}),
  };
}

export function ledgerJson(entry: LedgerEntry) {
  return {
    seq: entry.seq,
    at: isoAt(entry.atMs),
    kind: entry.kind,
    amountMicro: entry.amountMicro.toString(),
    balanceAfterMicro: entry.balanceAfterMicro.toString(),
    reference: entry.reference,
    holdId: entry.holdId,
  };
}

export function usageJson(record: UsageRecord) {
  return {
    seq: record.seq,
    at: isoAt(record.atMs),
    amountMicro: record.amountMicro.toString(),
    description: record.description,
    keyId: record.keyId,
    minerHotkey: record.minerHotkey,
    holdId: record.holdId,
    metadata: record.metadata,
  };
}
