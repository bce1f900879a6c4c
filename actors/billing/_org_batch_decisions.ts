/**
 * The in-memory half of the OrgActor's money batches (`_org_batch.ts`): each message of a run
 * decided in mailbox order against the account, holds and daily counters as the earlier decisions
 * left them. Pure: no I/O. Private to actors/billing.
 */
import { isoAt } from "../kernel/mod.ts";
import type { BatchOutcome } from "../runtime/mod.ts";
import { available, insufficientCredits, settleChange } from "./org_account.ts";
import { capLimitsOf, capRefusal, countersOf, holdCapOf } from "./_org_caps.ts";
import type { OrgMessage, OrgReply, ReleaseReply, ReserveReply, SettleReply } from "./org_messages.ts";
import { type AccountChange, type Hold, type OrgAccount, utcDay } from "../../storage/billing_store.ts";
import { capCounters, counterKey, type SpendCounter } from "../../storage/spend_caps.ts";

export type MoneyMessage = Extract<OrgMessage, { type: "reserve" | "settle" | "release" }>;
type Reserve = Extract<MoneyMessage, { type: "reserve" }>;

/** A reserve with its hold id and lifetime fixed (a generated id stays the same on every attempt). */
export interface Prepared {
  message: MoneyMessage;
  holdId: string;
  ttlMs: number;
}

/**
 * What the run decided for one message: its change (if any) and how its reply is made from the
 * account after the change (`reply` throws the message's refusal).
 */
export interface Step {
  index: number;
  change: AccountChange | null;
  reply: (after: OrgAccount | null) => OrgReply;
}

/** Where a run stopped: its end, and whether it stopped at a reserve that did not fit in memory. */
export interface Plan {
  steps: Step[];
  end: number;
  short: boolean;
}

/** The account and holds a run is decided on, as loaded, then as its decisions leave them. */
export interface RunState {
  account: OrgAccount;
  holds: Map<string, Hold>;
  /** The spend counters the run's capped reserves count against, by `counterKey`. */
  caps: Map<string, bigint>;
  now: number;
}

/**
 * The steps of the run from `from`, decided in order on `state` (which they change): it ends
 * before the first message the memory cannot decide alone. A reserve that does not fit is
 * refused in the run only when its index is `refusable`.
 */
export function decide(
  prepared: Prepared[],
  state: RunState,
  at: { from: number; outcomes: (BatchOutcome<OrgReply> | undefined)[]; refusable: Set<number> },
): Plan {
  const steps: Step[] = [];
  for (let index = at.from; index < prepared.length; index++) {
    if (at.outcomes[index]) continue;
    const step = decideOne(prepared[index]!, state, at.refusable.has(index));
    if (step === "short") return { steps, end: index, short: true };
    if (!step) return { steps, end: index, short: false };
    steps.push({ index, ...step });
  }
  return { steps, end: prepared.length, short: false };
}

type Decision = Omit<Step, "index"> | "short" | null;

function decideOne(prepared: Prepared, state: RunState, refusable: boolean): Decision {
  const { message } = prepared;
  if (message.type === "reserve") return decideReserve(prepared, message, state, refusable);
  const hold = state.holds.get(prepared.holdId);
  if (message.type === "release") {
    if (!hold) return { change: null, reply: (): ReleaseReply => ({ released: false }) };
    unhold(state, hold, 0n);
    return {
      change: { atMs: state.now, removeHoldId: hold.id },
      reply: (): ReleaseReply => ({ released: true }),
    };
  }
  // A settle whose hold is gone (a repeat, a late settle, an unknown id) takes the slow path.
  if (!hold) return null;
  unhold(state, hold, message.costMicro);
  state.account.balanceMicro -= message.costMicro;
  const charged = { holdId: hold.id, chargedMicro: message.costMicro, alreadySettled: false };
  return {
    change: settleChange(message, { atMs: state.now, holdStored: true }),
    reply: (after): SettleReply => ({
      ...charged,
      balanceAfterMicro: after!.balanceMicro,
      availableAfterMicro: available(after!),
    }),
  };
}

/**
 * A new hold that fits in memory; null for a repeat (the slow path answers it); for one that does
 * not fit, its refusal (402, the cap's first, as the single path answers) when `refusable`, else
 * "short".
 */
function decideReserve(prepared: Prepared, message: Reserve, state: RunState, refusable: boolean): Decision {
  const { holdId, ttlMs } = prepared;
  const { amountMicro, cap } = message;
  if (state.holds.has(holdId)) return null;
  const day = utcDay(state.now);
  const spentOf = (counter: SpendCounter) => state.caps.get(counterKey(counter)) ?? 0n;
  const overCap = cap ? capRefusal(cap, { day, amountMicro, spentOf }) : null;
  if (overCap || available(state.account) < amountMicro) {
    if (!refusable) return "short";
    const refusal = overCap ?? insufficientCredits(amountMicro, available(state.account));
    return {
      change: null,
      reply: () => {
        throw refusal;
      },
    };
  }
  const hold: Hold = {
    id: holdId,
    amountMicro,
    createdAtMs: state.now,
    expiresAtMs: state.now + ttlMs,
    ...(cap ? { cap: holdCapOf(cap, day) } : {}),
  };
  state.holds.set(holdId, hold);
  state.account.heldMicro += amountMicro;
  for (const counter of cap ? countersOf(cap, day) : []) {
    state.caps.set(counterKey(counter), spentOf(counter) + amountMicro);
  }
  const change = { atMs: state.now, addHold: hold, ...(cap ? { capLimits: capLimitsOf(cap) } : {}) };
  return { change, reply: (): ReserveReply => ({ holdId, amountMicro, expiresAt: isoAt(hold.expiresAtMs) }) };
}

/** Drops `hold` in memory; each of its spend counters (when tracked) moves by `charged − amount`. */
function unhold(state: RunState, hold: Hold, chargedMicro: bigint): void {
  state.holds.delete(hold.id);
  state.account.heldMicro -= hold.amountMicro;
  for (const counter of hold.cap ? capCounters(hold.cap) : []) {
    const key = counterKey(counter);
    const spent = state.caps.get(key);
    if (spent !== undefined) state.caps.set(key, spent + chargedMicro - hold.amountMicro);
  }
}

/** The spend counters a reserve counts against when decided at `now` (none for an uncapped one). */
export function reserveCounters(message: MoneyMessage, now: number): SpendCounter[] {
  return message.type === "reserve" && message.cap ? countersOf(message.cap, utcDay(now)) : [];
}
