/**
 * The rows of PgBillingStore's reads (holds, ledger entries, usage records): their columns and
 * their mapping to the store's records. Private to storage/postgres.
 */
import type { Hold, HoldCap, LedgerEntry, LedgerKind, UsageRecord, UsageValue } from "../billing_store.ts";

export interface HoldRow {
  hold_id: string;
  amount_micro: bigint;
  created_at_ms: bigint;
  expires_at_ms: bigint;
  cap_miner: string | null;
  cap_day: string | null;
  cap_validator: string | null;
  cap_lease: string | null;
}

export interface LedgerRow {
  seq: bigint;
  at_ms: bigint;
  kind: LedgerKind;
  amount_micro: bigint;
  balance_after_micro: bigint;
  reference: string | null;
  hold_id: string | null;
}

export interface UsageRow {
  seq: bigint;
  at_ms: bigint;
  hold_id: string;
  key_id: string | null;
  miner_hotkey: string | null;
  description: string;
  metadata: Record<string, UsageValue>;
  amount_micro: bigint;
}

export const LEDGER = "seq, at_ms, kind, amount_micro, balance_after_micro, reference, hold_id";
export const HOLD_COLUMNS =
  "hold_id, amount_micro, created_at_ms, expires_at_ms, cap_miner, cap_day, cap_validator, cap_lease";
export const USAGE = "seq, at_ms, hold_id, key_id, miner_hotkey, description, metadata, amount_micro";

export function toHold(row: HoldRow): Hold {
  return {
    id: row.hold_id,
    amountMicro: row.amount_micro,
    createdAtMs: Number(row.created_at_ms),
    expiresAtMs: Number(row.expires_at_ms),
    ...(row.cap_miner === null || row.cap_day === null
      ? {}
      : { cap: capOf(row, row.cap_miner, row.cap_day) }),
  };
}

function capOf(row: HoldRow, minerHotkey: string, day: string): HoldCap {
  return {
    minerHotkey,
    day,
    ...(row.cap_validator === null ? {} : { validatorHotkey: row.cap_validator }),
    ...(row.cap_lease === null ? {} : { agentPredictionId: row.cap_lease }),
  };
}

export function toEntry(row: LedgerRow): LedgerEntry {
  return {
    seq: Number(row.seq),
    atMs: Number(row.at_ms),
    kind: row.kind,
    amountMicro: row.amount_micro,
    balanceAfterMicro: row.balance_after_micro,
    reference: row.reference,
    holdId: row.hold_id,
  };
}

export function toUsage(row: UsageRow): UsageRecord {
  return {
    seq: Number(row.seq),
    atMs: Number(row.at_ms),
    holdId: row.hold_id,
    keyId: row.key_id,
    minerHotkey: row.miner_hotkey,
    description: row.description,
    metadata: row.metadata,
    amountMicro: row.amount_micro,
  };
}
