import { z } from "zod";
import { isoAt } from "../../actors/kernel/mod.ts";
import type { BalanceReply, OrgView } from "../../actors/billing/mod.ts";
import type { LedgerEntry, UsageRecord } from "../../storage/billing_store.ts";
import type { ApiKeySummary } from "../../storage/api_key_store.ts";
import { ApiKeySummarySchema, microString } from "../http/shared_schemas.ts";

const instant = z.string().meta({ description: "ISO 8601 UTC with milliseconds" });

const BalanceFields = {
  balanceMicro: microString("Settled balance."),
  heldMicro: microString("Held by calls in flight."),
  availableMicro: microString("Balance minus holds."),
  lastUsageAt: instant.nullable(),
};

/** Money as decimal strings; timestamps ISO 8601 (docs/conventions.md, "Values"). */
export function balanceJson(balance: BalanceReply) {
  return {
    balanceMicro: balance.balanceMicro.toString(),
    heldMicro: balance.heldMicro.toString(),
    availableMicro: balance.availableMicro.toString(),
    lastUsageAt: balance.lastUsageAt,
  };
}

export const OrgSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: instant,
  ...BalanceFields,
  defaultMinerHotkey: z.string().nullable(),
  miners: z.array(z.object({
    hotkey: z.string(),
    registeredAt: instant,
    default: z.boolean(),
    linkedWithProof: z.boolean().meta({
      description: "True when an owner linked it with a signed proof (false: registered by the operator).",
    }),
    boundMemberId: z.string().nullable().meta({
      description: "The dashboard member it signs in as (docs/dashboard.md); null: it signs in as nobody.",
    }),
  })),
  keys: z.array(ApiKeySummarySchema).optional().meta({ description: "The org's API keys (on `GET` only)." }),
}).meta({ id: "Org" });

/** An organisation as the admin API shows it; `keys` come from the API-key area, without secrets. */
export function orgJson(view: OrgView, keys?: readonly ApiKeySummary[]) {
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
      linkedWithProof: miner.linkedWithProof,
      boundMemberId: miner.boundMemberId,
    })),
    ...(keys ? { keys: [...keys] } : {}),
  };
}

export const LedgerEntrySchema = z.object({
  seq: z.number().int(),
  at: instant,
  kind: z.enum(["credit", "debit"]),
  amountMicro: microString("Signed amount added to the balance."),
  balanceAfterMicro: microString("Balance after this entry."),
  reference: z.string().nullable().meta({ description: "The top-up reference of a credit." }),
  holdId: z.string().nullable().meta({ description: "The hold a debit settled." }),
}).meta({ id: "LedgerEntry" });

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

/** The response to a credit: the entry and the balance after it. */
export const CreditResultSchema = z.object({
  duplicate: z.boolean().meta({
    description: "True when the reference was credited before: nothing changed.",
  }),
  entry: LedgerEntrySchema,
  ...BalanceFields,
}).meta({ id: "CreditResult" });

export const UsageRecordSchema = z.object({
  seq: z.number().int(),
  at: instant,
  amountMicro: microString("The cost charged."),
  description: z.string(),
  keyId: z.string().nullable(),
  minerHotkey: z.string().nullable(),
  holdId: z.string(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
}).meta({ id: "UsageRecord" });

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
