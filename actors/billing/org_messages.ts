import type { ActorKind, ActorSystem, Ask, TaggedMessages } from "../runtime/mod.ts";
import type { LedgerEntry, UsageValue } from "../../storage/billing_store.ts";
import type { MinerRegistration, OrgRecord } from "../../storage/org_store.ts";
import type { AuditActor } from "../../storage/audit_store.ts";

/** What a settled call was, for the usage listing. Never a prompt, an output or a secret. */
export interface UsageInput {
  keyId?: string;
  minerHotkey?: string;
  /** Short label, for example "openai/gpt-4o-mini". */
  description: string;
  metadata?: Record<string, UsageValue>;
}

/**
 * The spend caps a reserve counts against (validator completions, docs/billing.md "Spend caps of
 * validator completions"): the miner's counter for the UTC day of the hold, and when given the
 * signing validator's counter on that miner and day and the lease's counter. The hold is refused
 * with 402 `spend_cap_reached` (`details.cap` names the first cap it does not fit: `daily`,
 * `validator`, `lease`) unless each counter plus the hold stays within its limit. The hold's settle
 * and release move the same counters, in the same commit.
 */
export interface SpendCaps {
  minerHotkey: string;
  /** What the miner's validator completions may cost per UTC day. */
  limitMicro: bigint;
  /** The validator making the call, and what it may spend on this miner per UTC day. */
  validator?: { hotkey: string; limitMicro: bigint };
  /** The lease the call is made for, and what its calls may cost in all. */
  lease?: { agentPredictionId: string; limitMicro: bigint };
}

/** The messages an OrgActor understands. Amounts are bigint micro-units. */
export type OrgMessage =
  | { type: "create"; name: string }
  | { type: "get" }
  /** The account figures alone (the admin view reads them with `get`; kept for callers that need no more). */
  | { type: "balance" }
  /** Top-up; idempotent by `reference` (the same reference with another amount is a conflict). */
  | { type: "credit"; amountMicro: bigint; reference: string }
  /**
   * Holds `amountMicro` for a call in flight; fails `insufficient_credits` above the available
   * amount. Repeating it with the same `holdId` and amount returns the same hold; a hold id used
   * otherwise (another amount, or a hold since settled, released or expired) is a `conflict`.
   */
  | { type: "reserve"; amountMicro: bigint; holdId?: string; ttlMs?: number; cap?: SpendCaps }
  /**
   * Debits the actual cost (lower or higher than the hold) and drops the hold; never refused for
   * lack of money, and charged even after the hold expired or was released. `not_found` for a hold
   * id never reserved; a repeat is answered with the first settlement, or `conflict` when it names
   * another cost.
   */
  | { type: "settle"; holdId: string; costMicro: bigint; usage: UsageInput }
  /** Drops a hold without charging (the call failed or was not made). */
  | { type: "release"; holdId: string }
  /**
   * Registers a miner hotkey. `proof`: the caller verified the hotkey's signed link proof for this
   * org (a link: only such a hotkey may sign in to the dashboard). `by` is who asks (default: the
   * operator); a member must be an owner. Written with its audit entry.
   */
  | { type: "registerMiner"; hotkey: string; makeDefault?: boolean; proof?: boolean; by?: AuditActor }
  /** Unregisters (unlinks) a hotkey; the dashboard sessions it signed in end in the same write. */
  | { type: "unregisterMiner"; hotkey: string; by?: AuditActor }
  /**
   * Binds a hotkey linked with proof to a member for dashboard sign-in (`memberId` null: to
   * nobody); the sessions the hotkey signed in end in the same write.
   */
  | { type: "bindMiner"; hotkey: string; memberId: string | null; by: AuditActor }
  /** The low-balance warning as it stands: the threshold an owner set against the available amount. */
  | { type: "lowBalance" }
  /**
   * Sets the low-balance threshold (micro-units, 0 to 2^63 − 1), or clears it with null; `by`: the
   * member asking (an owner), else the operator. The audit entry is written with the change.
   */
  | { type: "setLowBalance"; thresholdMicro: bigint | null; by?: AuditActor }
  | { type: "setDefaultMiner"; hotkey: string };

/**
 * `availableMicro = balanceMicro − heldMicro`: what the next reserve may take. Signed: after an
 * overage `balanceMicro` and `availableMicro` are below zero.
 */
export interface BalanceReply {
  balanceMicro: bigint;
  heldMicro: bigint;
  availableMicro: bigint;
  /** When the last call was settled (ISO 8601, ms, Z). */
  lastUsageAt: string | null;
}

export interface OrgView {
  org: OrgRecord;
  balance: BalanceReply;
  miners: MinerRegistration[];
}

export interface CreditReply {
  entry: LedgerEntry;
  /** True when `reference` had been credited before: nothing changed. */
  duplicate: boolean;
  balance: BalanceReply;
}

export interface ReserveReply {
  holdId: string;
  amountMicro: bigint;
  expiresAt: string;
}

export interface SettleReply {
  holdId: string;
  chargedMicro: bigint;
  /** The settled balance right after this settle's debit (its ledger entry's `balanceAfterMicro`). */
  balanceAfterMicro: bigint;
  /**
   * What `balance` answers as available right after the settle: the balance minus the holds of
   * the calls still in flight (for a repeat, as of the repeat). `GET /v1/credits/balance`'s figure.
   */
  availableAfterMicro: bigint;
  /** True when the hold had been settled before: this reports that settlement, nothing changed. */
  alreadySettled: boolean;
}

export interface ReleaseReply {
  /** False when there was no such hold (already settled, released or expired). */
  released: boolean;
}

/**
 * The low-balance warning: `below` when a threshold is set and the available amount (balance
 * minus holds) is under it.
 */
export interface LowBalanceReply {
  thresholdMicro: bigint | null;
  availableMicro: bigint;
  below: boolean;
}

export interface MinerReply {
  /** "registered" (new), "already" (this org's before), "unregistered", "default" or "bound". */
  outcome: "registered" | "already" | "unregistered" | "default" | "bound";
  view: OrgView;
}

/** The reply type of each message type. */
export interface OrgReplies {
  create: OrgView;
  get: OrgView;
  balance: BalanceReply;
  credit: CreditReply;
  reserve: ReserveReply;
  settle: SettleReply;
  release: ReleaseReply;
  lowBalance: LowBalanceReply;
  setLowBalance: LowBalanceReply;
  registerMiner: MinerReply;
  unregisterMiner: MinerReply;
  bindMiner: MinerReply;
  setDefaultMiner: MinerReply;
}

export type OrgReply = OrgReplies[keyof OrgReplies];

/** Each OrgActor message with its reply. */
export type OrgMessages = TaggedMessages<OrgMessage, OrgReplies>;

/**
 * Messages that end a hold: never shed, never skipped when their caller has gone, retried until
 * committed (both are idempotent by hold id; docs/runtime.md).
 */
export function endsHold(message: OrgMessage): boolean {
  return message.type === "settle" || message.type === "release";
}

/** Sends a message to the OrgActor of `orgId`; the reply is typed after the message. */
export type AskOrg = Ask<OrgMessages>;

/** The `AskOrg` of one actor system and its registered OrgActor kind (what routes and jobs are given). */
export function orgAsker(actors: ActorSystem, kind: ActorKind<OrgMessages>): AskOrg {
  return (orgId, message, options) => actors.ask(kind, orgId, message, options);
}
