import type { CapLimits, HoldCap, SpendCounter, SpendPurgePage, SpendPurgeStep } from "./spend_caps.ts";

export type {
  CapLimits,
  CapName,
  HoldCap,
  SpendCounter,
  SpendPurgePage,
  SpendPurgeStep,
} from "./spend_caps.ts";

/** The largest amount storage holds (PostgreSQL BIGINT): 2^63 − 1 micro-units. */
export const MAX_MICRO = 2n ** 63n - 1n;

/** An organisation's money, in integer micro-units. `balanceMicro == Σ ledger amounts` always. */
export interface OrgAccount {
  balanceMicro: bigint;
  /** Σ amounts of the holds not yet settled, released or expired. */
  heldMicro: bigint;
  /** When the last call was settled. */
  lastUsageAtMs: number | null;
  /** Starts at 0 and grows by one with every commit; the `seq` of that commit's ledger entry. */
  version: number;
}

/** Money set aside for an in-flight call until it is settled, released or expires. */
export interface Hold {
  id: string;
  amountMicro: bigint;
  createdAtMs: number;
  expiresAtMs: number;
  /** Present when the hold counts against spend caps (`capCounters`); kept with its reservation. */
  cap?: HoldCap;
}

/** The UTC day (`YYYY-MM-DD`) of an instant: the day a capped hold counts against. */
export function utcDay(atMs: number): string {
  return new Date(atMs).toISOString().slice(0, 10);
}

export interface ExpiredHold {
  orgId: string;
  holdId: string;
  expiresAtMs: number;
}

/** A page of expired holds, in (expiresAtMs, orgId, holdId) order. */
export interface ExpiredPage {
  limit: number;
  /** The last hold of the previous page: this page starts strictly after it. */
  after?: ExpiredHold;
}

/** "credit": a top-up (positive); "debit": a settled call (negative, or zero for a free call). */
export type LedgerKind = "credit" | "debit";

/** One balance movement. Entries are only ever appended. */
export interface LedgerEntry {
  /** The account version that wrote it: increasing per org, with gaps (holds bump it too). */
  seq: number;
  atMs: number;
  kind: LedgerKind;
  /** Signed micro-units added to the balance. */
  amountMicro: bigint;
  balanceAfterMicro: bigint;
  /** The top-up reference of a credit (unique per org). */
  reference: string | null;
  /** The hold a debit settled (unique per org). */
  holdId: string | null;
}

export type UsageValue = string | number | boolean | null;

/** What a settled call was. Never holds secrets or prompts. */
export interface UsageDetails {
  keyId: string | null;
  minerHotkey: string | null;
  description: string;
  metadata: Record<string, UsageValue>;
}

/** A settled call, written with its debit (same `seq`). */
export interface UsageRecord extends UsageDetails {
  seq: number;
  atMs: number;
  holdId: string;
  /** The cost charged (positive or zero). */
  amountMicro: bigint;
}

/**
 * One atomic change of an account. The balance changes only by `entry.amountMicro`, appended
 * to the ledger in the same commit; `heldMicro` grows by `addHold` and shrinks by the stored
 * amount of `removeHoldId`. A change adds or removes a hold, never both.
 */
export interface AccountChange {
  atMs: number;
  /**
   * Only if its reference or hold id is unused, a positive amount keeps the balance at most
   * `MAX_MICRO`, and its hold id is `removeHoldId` or was reserved before (`findReservation`).
   */
  entry?: { kind: LedgerKind; amountMicro: bigint; reference?: string; holdId?: string };
  /**
   * Only if the available amount (balance − held) covers it and its id was never used in this
   * org (not held, reserved before or settled); the reservation is recorded for good. With a
   * `cap`, also only if each of its counters (`capCounters`) plus the amount stays within its limit.
   */
  addHold?: Hold;
  /** The limits an added hold with a `cap` must fit in (required with it, naming each of its counters). */
  capLimits?: CapLimits;
  /** Only if that hold is stored; it is deleted. */
  removeHoldId?: string;
  /** Recorded at the new version; sets `lastUsageAtMs` to `atMs`. */
  usage?: UsageDetails & { holdId: string; amountMicro: bigint };
}

/**
 * How a change moves each counter of the capped hold it touches (in the same atomic commit):
 * an added hold adds its amount; a removed hold takes its amount off; a debit settling a capped
 * hold adds its cost. So a settle with the hold adds `cost − hold` and a late settle (the hold
 * released or expired before) adds the cost: the counter is always Σ held + Σ charged that day.
 */
export function capDelta(
  change: AccountChange,
  touched: { removed: Hold | null; settledCapped: boolean },
): bigint {
  const debit = change.entry?.kind === "debit" && touched.settledCapped ? -change.entry.amountMicro : 0n;
  const added = change.addHold?.cap ? change.addHold.amountMicro : 0n;
  const removed = touched.removed?.cap ? touched.removed.amountMicro : 0n;
  return debit + added - removed;
}

/** What a lease's calls were charged: how many settled calls, and Σ their costs. */
export interface LeaseUsage {
  calls: number;
  costMicro: bigint;
}

/** Newest first; `beforeSeq` is the last `seq` of the previous page. */
export interface SeqPage {
  beforeSeq?: number;
  limit: number;
}

/**
 * Port for balances, holds, the ledger and usage. Each org's account is written by its OrgActor
 * through `commit`, whose conditions the store checks atomically (PostgreSQL: in the UPDATE's
 * WHERE; Deno KV: versionstamp-checked commits, re-read and re-checked after a race). So several
 * service instances sharing one store serialise in the store and never overspend. The account is
 * also read by `KeyUsageStore.count`, in the step that counts an API key's use.
 */
export interface BillingStore {
  getAccount(orgId: string): Promise<OrgAccount | null>;
  /**
   * Applies `change` atomically if its conditions hold: the org exists, an added hold fits in the
   * available amount and its id was never used, a removed hold is stored, the entry's reference or
   * hold id is unused, a settled hold id is removed now or was reserved, a credit keeps the
   * balance within `MAX_MICRO`, and an added capped hold fits each of its caps. The counters of
   * a capped hold the change touches move in the same commit (`capDelta`). Returns the new
   * account (version + 1), or null when a condition failed.
   */
  commit(orgId: string, change: AccountChange): Promise<OrgAccount | null>;
  /**
   * Applies `changes` in order as ONE atomic, durable commit (PostgreSQL: one transaction; Deno
   * KV: one atomic): all of them, or none when one change's conditions (those of `commit`) do not
   * hold on the account as the changes before it left it. Returns the account after each change
   * (version + 1, + 2, …: each change's ledger entry and usage record carry its own), or null.
   */
  commitBatch(orgId: string, changes: AccountChange[]): Promise<OrgAccount[] | null>;
  /** The most changes one `commitBatch` takes (more is a RangeError). */
  readonly maxBatch: number;
  /** The hold if it is still held (not settled, released or expired and released). */
  getHold(orgId: string, holdId: string): Promise<Hold | null>;
  /** The holds still held among `holdIds`, in no particular order. */
  getHolds(orgId: string, holdIds: string[]): Promise<Hold[]>;
  /** The hold as it was reserved, whether still held, settled, released or expired: null if never. */
  findReservation(orgId: string, holdId: string): Promise<Hold | null>;
  /** The org's holds, ordered by id. */
  listHolds(orgId: string): Promise<Hold[]>;
  /** Holds of every org with `expiresAtMs <= nowMs`, soonest first, at most `page.limit`. */
  listExpiredHolds(nowMs: number, page: ExpiredPage): Promise<ExpiredHold[]>;
  /** The credit entry written with `reference`. */
  findCredit(orgId: string, reference: string): Promise<LedgerEntry | null>;
  /** The debit entry that settled `holdId`. */
  findSettlement(orgId: string, holdId: string): Promise<LedgerEntry | null>;
  listLedger(orgId: string, page: SeqPage): Promise<LedgerEntry[]>;
  listUsage(orgId: string, page: SeqPage): Promise<UsageRecord[]>;
  /**
   * A spend counter: Σ amounts held plus Σ costs charged by the capped holds that name it (0 when
   * none). Changed only by `commit`, atomically with the holds and debits.
   */
  capSpent(counter: SpendCounter): Promise<bigint>;
  /**
   * One step of the purge of spend counters that can no longer matter: deletes, among at most
   * `page.limit` counters from `page.after` on, those dated before `page.beforeDay` that no hold
   * still held names (a hold that could still settle or be released keeps its counters, whatever
   * their day). A counter is deleted only as it was when that was checked: a hold taken, settled
   * or released on it meanwhile keeps it. Idempotent; deleting makes `capSpent` answer 0.
   */
  purgeSpendCounters(page: SpendPurgePage): Promise<SpendPurgeStep>;
  /**
   * The charged calls of each lease of `agentPredictionIds` (distinct): the usage records whose
   * `metadata.agentPredictionId` names it, in any org, counted and their amounts summed, in one
   * storage call (PostgreSQL: one query). A lease without any is absent from the map.
   */
  leaseUsage(agentPredictionIds: readonly string[]): Promise<Map<string, LeaseUsage>>;
}
