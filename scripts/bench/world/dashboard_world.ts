/**
 * The world of `bench:dashboard`: one organisation with `records` settled completions spread
 * evenly over `days` days, on `keys` API keys, `models` models (of three providers) and `miners`
 * miners, mixed pseudo-randomly. Each call's settle is built by the functions the billed call uses
 * (`completionUsage` for its usage record, `settleChange` for its commit). On Deno KV they are
 * committed through `BillingStore.commitBatch` (a reserve and its settle, as the OrgActor commits
 * them); on PostgreSQL the same ledger entries and usage records are inserted in bulk, which the
 * usage summary's trigger counts exactly as it counts a settle's (the statement that inserts usage
 * records is what it follows), and the account is set to what those commits would leave.
 */
import type postgres from "postgres";
import { settleChange } from "../../../actors/billing/mod.ts";
import { type CompletionCharge, completionUsage } from "../../../actors/gateway/mod.ts";
import type { AccountChange } from "../../../storage/billing_store.ts";
import type { Storage } from "../../../storage/storage.ts";
import { benchHotkeys } from "./world_setup.ts";

export interface DashboardShape {
  records: number;
  days: number;
  keys: number;
  models: number;
  miners: number;
}

export const ORG_ID = "org_dashboard";
/** What the org was credited: more than every call costs. */
const CREDIT_MICRO = 10n ** 15n;
const DAY_MS = 86_400_000;
const MODELS = [
  ["openai", "gpt-4o-mini"],
  ["anthropic", "claude-haiku-4"],
  ["mock", "gpt-bench"],
  ["openai", "gpt-4.1"],
  ["anthropic", "claude-sonnet-4"],
] as const;

/** One settled call of the world. */
export interface WorldCall {
  holdId: string;
  atMs: number;
  costMicro: bigint;
  keyId: string;
  minerHotkey: string;
  provider: string;
  model: string;
}

/** The world's `i`-th call: settled at an even step from `startMs`, its key, model and miner mixed by a hash of `i`. */
export function worldCall(
  i: number,
  shape: DashboardShape,
  startMs: number,
  miners: readonly string[],
): WorldCall {
  const mix = Number((BigInt(i) * 2_654_435_761n) % 4_294_967_296n);
  const [provider, model] = MODELS[Math.floor(mix / shape.keys) % shape.models]!;
  return {
    holdId: `gw_bench-${i}`,
    atMs: startMs + Math.floor((i * shape.days * DAY_MS) / shape.records),
    costMicro: BigInt(50 + (mix % 4_950)),
    keyId: `key_${String(mix % shape.keys).padStart(2, "0")}`,
    minerHotkey: miners[Math.floor(mix / (shape.keys * shape.models)) % shape.miners]!,
    provider,
    model,
  };
}

/** The settle of `call` as the OrgActor commits it, with the usage record the CompletionDesk builds. */
export function settleOf(call: WorldCall): AccountChange {
  const charge: CompletionCharge = {
    holdMicro: call.costMicro + 100n,
    costMicro: call.costMicro,
    providerCostMicro: call.costMicro,
    markupBps: 0,
    basis: "usage",
    usage: { promptTokens: 420, completionTokens: 90, totalTokens: 510 },
    latencyMs: 640,
  };
  const usage = completionUsage({ provider: call.provider, model: call.model, charge }, {
    requestId: call.holdId.slice(3),
    keyId: call.keyId,
    minerHotkey: call.minerHotkey,
  });
  const message = { type: "settle" as const, holdId: call.holdId, costMicro: call.costMicro, usage };
  return settleChange(message, { atMs: call.atMs, holdStored: true });
}

function reserveOf(call: WorldCall): AccountChange {
  const createdAtMs = call.atMs - 1_000;
  return {
    atMs: createdAtMs,
    addHold: {
      id: call.holdId,
      amountMicro: call.costMicro + 100n,
      createdAtMs,
      expiresAtMs: createdAtMs + 600_000,
    },
  };
}

/** The world's miners (registered to the org) and its credit, before any call. */
async function openOrg(storage: Storage, shape: DashboardShape, startMs: number): Promise<string[]> {
  const miners = benchHotkeys(shape.miners);
  await storage.orgs.create({ id: ORG_ID, name: "dashboard bench", createdAtMs: startMs - DAY_MS });
  for (const hotkey of miners) {
    await storage.orgs.registerMiner(ORG_ID, hotkey, { atMs: startMs - DAY_MS, makeDefault: false });
  }
  const credit = { kind: "credit" as const, amountMicro: CREDIT_MICRO, reference: "bench" };
  if (!(await storage.billing.commit(ORG_ID, { atMs: startMs - DAY_MS, entry: credit }))) {
    throw new Error("Cannot credit the bench org");
  }
  return miners;
}

/** Deno KV: every call reserved and settled through `commitBatch`, a batch of reserve–settle pairs at a time. */
export async function seedThroughCommits(
  storage: Storage,
  shape: DashboardShape,
  startMs: number,
): Promise<void> {
  const miners = await openOrg(storage, shape, startMs);
  const pairs = Math.floor(storage.billing.maxBatch / 2);
  for (let first = 0; first < shape.records; first += pairs) {
    const changes: AccountChange[] = [];
    for (let i = first; i < Math.min(shape.records, first + pairs); i++) {
      const call = worldCall(i, shape, startMs, miners);
      changes.push(reserveOf(call), settleOf(call));
    }
    if (!(await storage.billing.commitBatch(ORG_ID, changes))) {
      throw new Error(`Batch from call ${first} refused`);
    }
  }
}

/** Rows per bulk statement on PostgreSQL. */
const CHUNK = 20_000;

/**
 * PostgreSQL: the calls' ledger entries and usage records in bulk statements, at the versions
 * those commits would give them (each call's reserve takes one version, its settle the next),
 * then the account as they would leave it.
 */
export async function seedInBulk(
  storage: Storage,
  sql: postgres.Sql,
  options: { shape: DashboardShape; startMs: number },
): Promise<void> {
  const { shape, startMs } = options;
  const miners = await openOrg(storage, shape, startMs);
  let balance = CREDIT_MICRO;
  for (let first = 0; first < shape.records; first += CHUNK) {
    const rows = [];
    for (let i = first; i < Math.min(shape.records, first + CHUNK); i++) {
      const change = settleOf(worldCall(i, shape, startMs, miners));
      balance += change.entry!.amountMicro;
      rows.push({ seq: 3 + 2 * i, change, balance });
    }
    await insertSettles(sql, rows);
  }
  const last = worldCall(shape.records - 1, shape, startMs, miners);
  await sql`UPDATE orgs SET balance_micro = ${balance.toString()}::bigint, version = ${1 + 2 * shape.records},
    last_usage_at_ms = ${last.atMs} WHERE id = ${ORG_ID}`;
}

async function insertSettles(
  sql: postgres.Sql,
  rows: { seq: number; change: AccountChange; balance: bigint }[],
): Promise<void> {
  const records = rows.map(({ seq, change, balance }) => ({
    seq,
    at_ms: change.atMs,
    amount: change.usage!.amountMicro.toString(),
    balance_after: balance.toString(),
    hold_id: change.usage!.holdId,
    key_id: change.usage!.keyId,
    miner: change.usage!.minerHotkey,
    description: change.usage!.description,
    metadata: change.usage!.metadata,
  }));
  await sql`
    WITH r AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(records)}::text::jsonb) AS r(seq bigint, at_ms bigint,
        amount bigint, balance_after bigint, hold_id text, key_id text, miner text, description text, metadata jsonb)),
    ledger AS (
      INSERT INTO org_ledger (org_id, seq, at_ms, kind, amount_micro, balance_after_micro, hold_id)
      SELECT ${ORG_ID}, seq, at_ms, 'debit', -amount, balance_after, hold_id FROM r)
    INSERT INTO org_usage (org_id, seq, at_ms, hold_id, key_id, miner_hotkey, description, metadata, amount_micro)
    SELECT ${ORG_ID}, seq, at_ms, hold_id, key_id, miner, description, metadata, amount FROM r`;
}
