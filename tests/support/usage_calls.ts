/**
 * Random settled calls written through the billing store as the OrgActor writes them (a hold,
 * then its settle with the usage record; sometimes a late settle after the hold was released), and
 * what the usage summary must say about them, worked out from the ledger and the usage records.
 */
import type { AccountChange, BillingStore, UsageDetails, UsageRecord } from "../../storage/billing_store.ts";
import { QUARTER_MS, type UsageDimension } from "../../storage/usage_store.ts";
import { allLedgerEntries } from "./ledger.ts";
import type { Random } from "./populated/world_random.ts";

export interface RandomCall {
  holdId: string;
  atMs: number;
  costMicro: bigint;
  /** Settled after its hold was released (the hold gone). */
  late: boolean;
  details: UsageDetails;
}

const KEYS = ["key_a", "key_b", "key_c", null];
const MODELS = ["gpt-4o-mini", "claude-haiku", "llama-3", null];
const PROVIDERS = ["openai", "anthropic", "echo", null];
const MINERS = ["5Fminer1", "5Fminer2", null];
const VALIDATORS = ["5Hvalidator1", "5Hvalidator2", null];

function pick<T>(random: Random, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!;
}

/**
 * `count` calls settled at random instants of `[fromMs, fromMs + spanMs)`, a third of them on a
 * quarter-hour's first or last millisecond; random key, model, provider, miner and validator
 * (each sometimes absent), costs from 0 (free calls) to 5,000.
 */
export function randomCalls(random: Random, options: { count: number; fromMs: number; spanMs: number }) {
  return Array.from({ length: options.count }, (_, i): RandomCall => {
    let atMs = options.fromMs + Math.floor(random() * options.spanMs);
    const edge = random();
    if (edge < 0.17) atMs -= atMs % QUARTER_MS;
    else if (edge < 0.34) atMs += QUARTER_MS - 1 - (atMs % QUARTER_MS);
    const model = pick(random, MODELS);
    const provider = pick(random, PROVIDERS);
    const validator = pick(random, VALIDATORS);
    return {
      holdId: `h${i}_${Math.floor(random() * 1e9)}`,
      atMs,
      costMicro: random() < 0.1 ? 0n : BigInt(1 + Math.floor(random() * 5_000)),
      late: random() < 0.1,
      details: {
        keyId: pick(random, KEYS),
        minerHotkey: pick(random, MINERS),
        description: `${provider}/${model}`,
        metadata: {
          ...(model === null ? {} : { model }),
          // A non-string value counts as none.
          ...(provider === null ? { provider: 7 } : { provider }),
          ...(validator === null ? {} : { validatorHotkey: validator }),
          requestId: `req_${i}`,
        },
      },
    };
  });
}

/** The hold of `call` (reserved the minute before its settle). */
export function reserveOf(call: RandomCall): AccountChange {
  const createdAtMs = call.atMs - 60_000;
  return {
    atMs: createdAtMs,
    addHold: {
      id: call.holdId,
      amountMicro: call.costMicro + 10n,
      createdAtMs,
      expiresAtMs: createdAtMs + 600_000,
    },
  };
}

/** The settle of `call`: its debit and usage record, removing its hold unless the hold is gone. */
export function settleOf(call: RandomCall): AccountChange {
  return {
    atMs: call.atMs,
    ...(call.late ? {} : { removeHoldId: call.holdId }),
    entry: { kind: "debit", amountMicro: -call.costMicro, holdId: call.holdId },
    usage: { ...call.details, holdId: call.holdId, amountMicro: call.costMicro },
  };
}

/**
 * Writes `calls` to `orgId` (which must have the credit): every hold first (the late ones
 * released), then the settles, alone or in batches of up to `batch` (from the call's index).
 */
export async function settleCalls(
  billing: BillingStore,
  orgId: string,
  calls: readonly RandomCall[],
  options: { batch: (index: number) => number },
): Promise<void> {
  for (const call of calls) {
    if (!(await billing.commit(orgId, reserveOf(call)))) throw new Error(`Hold refused: ${call.holdId}`);
    if (call.late && !(await billing.commit(orgId, { atMs: call.atMs, removeHoldId: call.holdId }))) {
      throw new Error(`Release refused: ${call.holdId}`);
    }
  }
  for (let i = 0; i < calls.length;) {
    const size = Math.max(1, Math.min(options.batch(i), billing.maxBatch, calls.length - i));
    const changes = calls.slice(i, i + size).map(settleOf);
    const done = size === 1
      ? await billing.commit(orgId, changes[0]!)
      : await billing.commitBatch(orgId, changes);
    if (!done) throw new Error(`Settle refused at call ${i}`);
    i += size;
  }
}

/** Every usage record of `orgId`, newest first. */
export async function allUsage(billing: BillingStore, orgId: string): Promise<UsageRecord[]> {
  const records: UsageRecord[] = [];
  for (let page = await billing.listUsage(orgId, { limit: 200 }); page.length > 0;) {
    records.push(...page);
    page = await billing.listUsage(orgId, { limit: 200, beforeSeq: page.at(-1)!.seq });
  }
  return records;
}

/** What the ledger says of `[fromMs, toMs)`: −Σ its debits there, and how many. */
export async function ledgerDebits(
  billing: BillingStore,
  orgId: string,
  range: { fromMs: number; toMs: number },
): Promise<{ spendMicro: bigint; calls: number }> {
  const debits = (await allLedgerEntries(billing, orgId))
    .filter((entry) => entry.kind === "debit" && entry.atMs >= range.fromMs && entry.atMs < range.toMs);
  return { spendMicro: -debits.reduce((sum, entry) => sum + entry.amountMicro, 0n), calls: debits.length };
}

/** A record's value in `dimension`, worked out by hand (not with the code under test). */
export function valueIn(record: UsageRecord, dimension: UsageDimension): string {
  const text = (value: unknown) => typeof value === "string" ? value : "";
  if (dimension === "key") return record.keyId ?? "";
  if (dimension === "miner") return record.minerHotkey ?? "";
  if (dimension === "validator") return text(record.metadata.validatorHotkey);
  return text(record.metadata[dimension]);
}
