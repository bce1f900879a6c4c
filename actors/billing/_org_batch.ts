/**
 * The OrgActor's batch of money messages (reserve, settle, release) that were waiting together in
 * its mailbox: decided in mailbox order against the account in memory and committed in ONE
 * `BillingStore.commitBatch` (docs/billing.md, "Batched commits"); the in-memory decisions are in
 * `_org_batch_decisions.ts`. A run is first decided on what the actor remembers (`OrgMemory`),
 * without reading storage, when every message of it commits a change. Private to actors/billing.
 */
import type { BatchOutcome } from "../runtime/mod.ts";
import { invalidField, requireAmount } from "./org_account.ts";
import type { OrgMessage, OrgReply } from "./org_messages.ts";
import type { AccountChange, BillingStore, OrgAccount } from "../../storage/billing_store.ts";
import type { OrgMemory } from "./_org_memory.ts";
import {
  decide,
  type MoneyMessage,
  type Plan,
  type Prepared,
  reserveCounters,
  type RunState,
  type Step,
} from "./_org_batch_decisions.ts";
import { requireCapLimits } from "./_org_caps.ts";
import { counterKey } from "../../storage/spend_caps.ts";

export type { MoneyMessage };

/** The messages an OrgActor commits in batches: those that move money and end or take holds. */
export function isMoney(message: OrgMessage): message is MoneyMessage {
  return message.type === "reserve" || message.type === "settle" || message.type === "release";
}

/**
 * Loads and decisions of one run before it falls back to one commit per message: a run refused
 * while the account changed (another instance wrote it) is decided again from a fresh load.
 */
const RUN_ATTEMPTS = 4;

export interface BatchDeps {
  orgId: string;
  billing: BillingStore;
  clock: () => number;
  holdTtlMs: number;
  /** The OrgActor's own handling of one message: its single commit and every slow path. */
  single(message: MoneyMessage): Promise<OrgReply>;
  /** What the actor remembers of its account: used, and kept up to date, by the batch. */
  memory: OrgMemory;
}

/**
 * Answers `messages` (money messages only) in order: runs of messages decided in memory are
 * committed together; a message the run cannot decide alone (a repeat, a hold already gone, a
 * reserve that does not fit) is handed to `single` in its turn, after the run before it.
 */
export async function runMoneyBatch(
  messages: MoneyMessage[],
  deps: BatchDeps,
): Promise<BatchOutcome<OrgReply>[]> {
  const outcomes: (BatchOutcome<OrgReply> | undefined)[] = messages.map((message) => checked(message));
  const prepared = messages.map((message) => prepare(message, deps.holdTtlMs));
  let from = 0;
  while (from < messages.length) {
    if (outcomes[from]) {
      from++;
      continue;
    }
    try {
      const run = await commitRun(prepared, { from, outcomes, deps });
      const end = run.committed ? run.end : Math.max(run.end, from + 1);
      if (!run.committed) await runSingly(prepared, { from, end, outcomes, deps });
      from = end;
    } catch (error) {
      // A failed commit may have been written or not: remember nothing of it.
      deps.memory.forget();
      for (let i = from; i < messages.length; i++) outcomes[i] ??= { error };
      break;
    }
  }
  return outcomes.map((outcome) => outcome!);
}

/** The message's own refusal (a bad amount or lifetime), before anything is read. */
function checked(message: MoneyMessage): BatchOutcome<OrgReply> | undefined {
  try {
    if (message.type === "settle") requireAmount(message.costMicro, { field: "costMicro", min: 0n });
    if (message.type !== "reserve") return undefined;
    requireAmount(message.amountMicro, { field: "amountMicro", min: 1n });
    const { ttlMs, cap } = message;
    if (ttlMs !== undefined && (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)) {
      throw invalidField("ttlMs", "Must be a positive integer");
    }
    if (cap) requireCapLimits(cap);
    return undefined;
  } catch (error) {
    return { error };
  }
}

function prepare(message: MoneyMessage, holdTtlMs: number): Prepared {
  if (message.type !== "reserve") return { message, holdId: message.holdId, ttlMs: 0 };
  return {
    message,
    holdId: message.holdId ?? `hold_${crypto.randomUUID()}`,
    ttlMs: message.ttlMs ?? holdTtlMs,
  };
}

/** Hands messages `from` … `end − 1` (those not answered yet) to `single`, one after the other. */
async function runSingly(
  prepared: Prepared[],
  at: { from: number; end: number; outcomes: (BatchOutcome<OrgReply> | undefined)[]; deps: BatchDeps },
): Promise<void> {
  const { from, end, outcomes, deps } = at;
  for (let i = from; i < end; i++) {
    if (outcomes[i]) continue;
    try {
      outcomes[i] = { reply: await deps.single(prepared[i]!.message) };
    } catch (error) {
      outcomes[i] = { error };
    }
  }
}

/**
 * Decides the run starting at `from` and commits it; `committed` false when it was refused with
 * the account unchanged (a condition the memory could not see: a hold id used long ago, a cap
 * moved by another org), after `RUN_ATTEMPTS`, or when the first message needs `single` (`end`
 * is then `from`).
 */
async function commitRun(
  prepared: Prepared[],
  at: { from: number; outcomes: (BatchOutcome<OrgReply> | undefined)[]; deps: BatchDeps },
): Promise<{ committed: boolean; end: number }> {
  if (await commitFromMemory(prepared, at)) return { committed: true, end: prepared.length };
  const { from, deps } = at;
  let refusedAt: number | undefined;
  let end = from;
  for (let attempt = 0; attempt < RUN_ATTEMPTS; attempt++) {
    const state = await load(prepared, at);
    if (state.account.version === refusedAt) break;
    const plan = await planRun(prepared, state, at);
    end = plan.end;
    if (plan.steps.length === 0) return { committed: false, end };
    const changes = plan.steps.flatMap((step) => step.change ? [step.change] : []);
    const accounts = await commitChanges(deps, changes);
    if (accounts) {
      answerAll(plan.steps, accounts, at);
      return { committed: true, end };
    }
    refusedAt = state.account.version;
  }
  return { committed: false, end };
}

/**
 * Decides the rest of the batch on the actor's memory and commits it, when every one of its
 * messages commits a change (a refusal, a release of an unknown hold, a repeat or a settle of a
 * hold it does not know needs storage read first); false when it did not (nothing answered).
 */
async function commitFromMemory(
  prepared: Prepared[],
  at: { from: number; outcomes: (BatchOutcome<OrgReply> | undefined)[]; deps: BatchDeps },
): Promise<boolean> {
  const { deps } = at;
  const state = deps.memory.state(deps.clock());
  if (!state) return false;
  const plan = decide(prepared, state, { ...at, refusable: new Set() });
  if (plan.end < prepared.length || plan.steps.some((step) => !step.change)) return false;
  const accounts = await commitChanges(deps, plan.steps.map((step) => step.change!));
  if (!accounts) return false;
  answerAll(plan.steps, accounts, at);
  return true;
}

/** Answers each step from the account after its change (in order), and remembers the result. */
function answerAll(
  steps: Step[],
  accounts: OrgAccount[],
  at: { outcomes: (BatchOutcome<OrgReply> | undefined)[]; deps: BatchDeps },
): void {
  const { memory } = at.deps;
  let next = 0;
  for (const step of steps) {
    const after = step.change ? accounts[next++]! : null;
    at.outcomes[step.index] = answer(step, after);
    if (after) memory.account(after);
    if (step.change?.addHold) memory.held(step.change.addHold);
    if (step.change?.removeHoldId !== undefined) memory.gone(step.change.removeHoldId);
  }
}

function answer(step: Step, after: OrgAccount | null): BatchOutcome<OrgReply> {
  try {
    return { reply: step.reply(after) };
  } catch (error) {
    return { error };
  }
}

/**
 * Decides the run on `state`; a reserve that does not fit is refused in memory (402) when the
 * single path would refuse it too: no hold of the org has expired (the single path would release
 * those and try again) and its hold id was never used (else its answer is 409). Otherwise the run
 * ends before it and the single path answers it.
 */
async function planRun(
  prepared: Prepared[],
  state: RunState,
  at: { from: number; outcomes: (BatchOutcome<OrgReply> | undefined)[]; deps: BatchDeps },
): Promise<Plan> {
  const refusable = new Set<number>();
  let expired: boolean | undefined;
  for (;;) {
    const plan = decide(prepared, copyOf(state), { ...at, refusable });
    if (!plan.short || plan.end === prepared.length) return plan;
    expired ??= (await at.deps.billing.listHolds(at.deps.orgId)).some((hold) =>
      hold.expiresAtMs <= state.now
    );
    if (expired || !(await neverUsed(at.deps, prepared[plan.end]!))) return plan;
    refusable.add(plan.end);
  }
}

/** True when a reserve's hold id was never used in the org (a generated one never was). */
async function neverUsed(deps: BatchDeps, prepared: Prepared): Promise<boolean> {
  if (prepared.message.type !== "reserve" || prepared.message.holdId === undefined) return true;
  const { billing, orgId } = deps;
  const [reserved, settled] = await Promise.all([
    billing.findReservation(orgId, prepared.holdId),
    billing.findSettlement(orgId, prepared.holdId),
  ]);
  return reserved === null && settled === null;
}

function copyOf(state: RunState): RunState {
  return { ...state, account: { ...state.account }, holds: new Map(state.holds), caps: new Map(state.caps) };
}

/** One change as a single commit, several as one batch commit; the account after each, or null. */
async function commitChanges(deps: BatchDeps, changes: AccountChange[]): Promise<OrgAccount[] | null> {
  if (changes.length === 0) return [];
  if (changes.length > 1) return await deps.billing.commitBatch(deps.orgId, changes);
  const next = await deps.billing.commit(deps.orgId, changes[0]!);
  return next ? [next] : null;
}

/**
 * The account, the holds the run's messages name, and the spend counters of its capped reserves (what
 * was read of the account and those holds is remembered).
 */
async function load(
  prepared: Prepared[],
  at: { from: number; outcomes: (BatchOutcome<OrgReply> | undefined)[]; deps: BatchDeps },
): Promise<RunState> {
  const { from, outcomes, deps } = at;
  const open = prepared.slice(from).filter((_, i) => !outcomes[from + i]);
  const now = deps.clock();
  const counters = new Map(
    open.flatMap(({ message }) => reserveCounters(message, now)).map((
      counter,
    ) => [counterKey(counter), counter]),
  );
  const named = [...new Set(open.map((step) => step.holdId))];
  const [account, holds, spent] = await Promise.all([
    deps.billing.getAccount(deps.orgId),
    deps.billing.getHolds(deps.orgId, named),
    Promise.all([...counters.values()].map((counter) => deps.billing.capSpent(counter))),
  ]);
  if (!account) throw new Error(`Cannot read account: organisation ${deps.orgId} has none`);
  deps.memory.account(account);
  for (const id of named) deps.memory.gone(id);
  for (const hold of holds) deps.memory.held(hold);
  return {
    account,
    holds: new Map(holds.map((hold) => [hold.id, hold])),
    caps: new Map([...counters.keys()].map((key, i) => [key, spent[i]!])),
    now,
  };
}
