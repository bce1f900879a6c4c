/** What a `KvBillingStore` commit checks and writes, given what it read (private to storage/kv). */
import {
  type AccountChange,
  type Hold,
  type LedgerEntry,
  MAX_MICRO,
  type OrgAccount,
  type UsageRecord,
} from "../billing_store.ts";
import { orgKeys } from "./_org_keys.ts";
import { writeUsageSummary } from "./_usage_keys.ts";

/** What a change's conditions depend on, as the store (and the changes before it in a batch) left it. */
export interface Reads {
  account: OrgAccount | null;
  /** The hold being added (must be absent) or removed (must be present). */
  hold: Hold | null;
  /** No credit with this reference, no settlement of this hold id, no earlier use of a new hold's id. */
  markersFree: boolean;
  /** A hold settled without being removed now was reserved before. */
  reserved: boolean;
}

/** Where a commit's writes go (a batch's view of the store); `sum` adds to a `Deno.KvU64`. */
export interface KvWrites {
  set(key: Deno.KvKey, value: unknown): unknown;
  delete(key: Deno.KvKey): unknown;
  sum(key: Deno.KvKey, value: bigint): unknown;
}

/** The marker keys a change's conditions need absent (unused) or present (reserved before). */
export interface MarkerKeys {
  absent: Deno.KvKey[];
  present: Deno.KvKey[];
}

/** The account after `change`, or null when one of its conditions does not hold. */
export function checkedNext(read: Reads, change: AccountChange): OrgAccount | null {
  const { account, hold } = read;
  if (!account || !read.markersFree || !read.reserved) return null;
  const { addHold, removeHoldId, entry, usage, atMs } = change;
  if (addHold && (hold || account.balanceMicro - account.heldMicro < addHold.amountMicro)) return null;
  const removed = removeHoldId === undefined ? null : hold;
  if (removeHoldId !== undefined && !removed) return null;
  const amountMicro = entry?.amountMicro ?? 0n;
  if (amountMicro > 0n && account.balanceMicro > MAX_MICRO - amountMicro) return null;
  return {
    balanceMicro: account.balanceMicro + amountMicro,
    heldMicro: account.heldMicro + (addHold?.amountMicro ?? 0n) - (removed?.amountMicro ?? 0n),
    lastUsageAtMs: usage ? atMs : account.lastUsageAtMs,
    version: account.version + 1,
  };
}

/** Adds a hold (with its expiry index entry and its lasting reservation), or deletes one. */
export function writeHolds(
  op: KvWrites,
  orgId: string,
  { added, removed }: { added: Hold | null; removed: Hold | null },
): void {
  if (added) {
    op.set(orgKeys.hold(orgId, added.id), added);
    op.set(orgKeys.holdExpiry(added.expiresAtMs, orgId, added.id), true);
    op.set(orgKeys.reservation(orgId, added.id), added);
  }
  if (removed) {
    op.delete(orgKeys.hold(orgId, removed.id));
    op.delete(orgKeys.holdExpiry(removed.expiresAtMs, orgId, removed.id));
  }
}

/**
 * The ledger entry (with its reference or settled-hold marker) and the usage record, at
 * `next.version`, with the record added to the usage summary (`writeUsageSummary`).
 */
export function writeRecords(
  op: KvWrites,
  orgId: string,
  { change, next }: { change: AccountChange; next: OrgAccount },
): void {
  const { entry, usage, atMs } = change;
  if (entry) {
    const ledger: LedgerEntry = {
      seq: next.version,
      atMs,
      kind: entry.kind,
      amountMicro: entry.amountMicro,
      balanceAfterMicro: next.balanceMicro,
      reference: entry.reference ?? null,
      holdId: entry.holdId ?? null,
    };
    op.set(orgKeys.ledger(orgId, next.version), ledger);
    if (entry.reference !== undefined) op.set(orgKeys.creditReference(orgId, entry.reference), next.version);
    if (entry.holdId !== undefined) op.set(orgKeys.settledHold(orgId, entry.holdId), next.version);
  }
  if (usage) {
    const record: UsageRecord = { ...usage, seq: next.version, atMs };
    op.set(orgKeys.usage(orgId, next.version), record);
    const lease = usage.metadata.agentPredictionId;
    if (typeof lease === "string") op.set(orgKeys.leaseUsage(lease, orgId, next.version), usage.amountMicro);
    writeUsageSummary(op, orgId, record);
  }
}
