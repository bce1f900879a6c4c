import { type Clock, isoAt } from "../kernel/mod.ts";
import { type Actor, type ActorKind, type BatchOutcome, conditionalWrite, LOST } from "../runtime/mod.ts";
import { ServiceError } from "../kernel/mod.ts";
import { changeMiners, type MinerMessage } from "./_org_miners.ts";
import { isMoney, type MoneyMessage, runMoneyBatch } from "./_org_batch.ts";
import { OrgMemory } from "./_org_memory.ts";
import { lowBalance } from "./_org_low_balance.ts";
import { type CreditDeps, creditOrg } from "./_org_credit.ts";
import {
  available,
  balanceOf,
  holdIdInUse,
  insufficientCredits,
  invalidField,
  repeatedSettle,
  requireAmount,
  settleChange,
} from "./org_account.ts";
import { capLimitsOf, holdCapOf, refuseOverCap, requireCapLimits } from "./_org_caps.ts";
import {
  endsHold,
  type MinerReply,
  type OrgMessage,
  type OrgMessages,
  type OrgReply,
  type OrgView,
  type ReleaseReply,
  type ReserveReply,
  type SettleReply,
} from "./org_messages.ts";
import { type BillingStore, type Hold, type OrgAccount, utcDay } from "../../storage/billing_store.ts";
import type { OrgRecord, OrgStore } from "../../storage/org_store.ts";
import type { MemberStore } from "../../storage/member_store.ts";

export type * from "./org_messages.ts";
export { endsHold, orgAsker } from "./org_messages.ts";

export interface OrgActorDeps {
  orgs: OrgStore;
  billing: BillingStore;
  clock: Clock;
  /** Lifetime of a hold whose reserve names none. */
  holdTtlMs: number;
  /** The dashboard's members, for miner changes a member asks (an owner); without it only the operator's. */
  members?: Pick<MemberStore, "member">;
}

/**
 * Commit attempts of a settle (`conditionalWrite`): a hold released or settled elsewhere in
 * between needs another look.
 */
const COMMIT_ATTEMPTS = 4;

/**
 * The owner of one organisation's money and miners. Every money change is one conditional commit
 * (the store appends the ledger entry in the same commit and checks the conditions atomically: a
 * new hold fits and its id was never used, a removed hold is still there, a settled hold id was
 * reserved, a credit stays within 2^63 − 1), so actors of the same org on several instances never
 * overspend; when a condition fails the actor looks at storage again and decides. Balance reads
 * go to storage, so every instance reports the same figures.
 */
export class OrgActor implements Actor<OrgMessages> {
  readonly #id: string;
  readonly #deps: OrgActorDeps;
  /** The org as last read: null until it exists. */
  #org: OrgRecord | null;
  /** The account and holds as its commits and reads last left them (a hint for batches). */
  readonly #memory = new OrgMemory();

  constructor(id: string, deps: OrgActorDeps, org: OrgRecord | null) {
    this.#id = id;
    this.#deps = deps;
    this.#org = org;
  }

  async receive(message: OrgMessage): Promise<OrgReply> {
    if (message.type === "create") return await this.#create(message.name);
    await this.#requireOrg();
    switch (message.type) {
      case "get":
        return await this.#view();
      case "balance":
        return balanceOf(await this.#account());
      case "credit":
        return await creditOrg(this.#creditDeps(), message.amountMicro, message.reference);
      case "reserve":
      case "settle":
      case "release":
        return await this.#money(message);
      case "lowBalance":
      case "setLowBalance":
        return await lowBalance(this.#deps, this.#id, message);
      default:
        return await this.#changeMiners(message);
    }
  }

  /**
   * Money messages that waited together (`isMoney`; the kind's `batchable`): decided in mailbox
   * order against the account in memory and committed in one batch commit, each answered as if
   * received alone (_org_batch.ts).
   */
  async receiveBatch(messages: OrgMessage[]): Promise<BatchOutcome<OrgReply>[]> {
    try {
      await this.#requireOrg();
      if (!messages.every(isMoney)) throw new TypeError("Cannot batch messages that move no money");
    } catch (error) {
      return messages.map(() => ({ error }));
    }
    const { billing, clock, holdTtlMs } = this.#deps;
    return await runMoneyBatch(messages, {
      orgId: this.#id,
      billing,
      clock,
      holdTtlMs,
      single: (message) => this.#money(message),
      memory: this.#memory,
    });
  }

  async #money(message: MoneyMessage): Promise<OrgReply> {
    if (message.type === "reserve") return await this.#reserve(message);
    if (message.type === "settle") return await this.#settle(message);
    return await this.#release(message.holdId);
  }

  async #create(name: string): Promise<OrgView> {
    const org = { id: this.#id, name, createdAtMs: this.#deps.clock() };
    if (!(await this.#deps.orgs.create(org))) {
      throw new ServiceError("conflict", `Organisation already exists: ${this.#id}`);
    }
    this.#org = { ...org, defaultMinerHotkey: null };
    const empty = { balanceMicro: 0n, heldMicro: 0n, lastUsageAtMs: null, version: 0 };
    return { org: this.#org, balance: balanceOf(empty), miners: [] };
  }

  async #reserve(message: Extract<OrgMessage, { type: "reserve" }>): Promise<ReserveReply> {
    const { amountMicro } = message;
    requireAmount(amountMicro, { field: "amountMicro", min: 1n });
    const ttlMs = message.ttlMs ?? this.#deps.holdTtlMs;
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw invalidField("ttlMs", "Must be a positive integer");
    const holdId = message.holdId ?? `hold_${crypto.randomUUID()}`;
    const { cap } = message;
    if (cap) requireCapLimits(cap);
    let day = "";
    const attempt = async (): Promise<ReserveReply | null> => {
      const now = this.#deps.clock();
      day = utcDay(now);
      const hold: Hold = {
        id: holdId,
        amountMicro,
        createdAtMs: now,
        expiresAtMs: now + ttlMs,
        ...(cap ? { cap: holdCapOf(cap, day) } : {}),
      };
      const change = { atMs: now, addHold: hold, ...(cap ? { capLimits: capLimitsOf(cap) } : {}) };
      const next = await this.#deps.billing.commit(this.#id, change);
      if (!next) return null;
      this.#memory.account(next);
      this.#memory.held(hold);
      return { holdId, amountMicro, expiresAt: isoAt(hold.expiresAtMs) };
    };
    // Refused: a repeat of an earlier reserve (same hold id), or not enough available — unless
    // expired holds were still counted.
    let reply = await attempt();
    if (!reply && message.holdId !== undefined) reply = await this.#existingHold(holdId, amountMicro);
    if (!reply && (await this.#releaseExpired(this.#deps.clock())) > 0) reply = await attempt();
    if (reply) return reply;
    if (cap) await refuseOverCap(this.#deps.billing, cap, { day, amountMicro });
    throw insufficientCredits(amountMicro, available(await this.#account()));
  }

  /**
   * The hold still held under this id with the same amount (the reserve is a repeat); 409 when the id
   * was used otherwise (another amount, or a hold since settled, released or expired); null when the
   * id was never used.
   */
  async #existingHold(holdId: string, amountMicro: bigint): Promise<ReserveReply | null> {
    const { billing } = this.#deps;
    const hold = await billing.getHold(this.#id, holdId);
    if (hold && hold.amountMicro === amountMicro) {
      return { holdId, amountMicro, expiresAt: isoAt(hold.expiresAtMs) };
    }
    const used = hold ?? await billing.findReservation(this.#id, holdId) ??
      await billing.findSettlement(this.#id, holdId);
    if (used) throw holdIdInUse(holdId);
    return null;
  }

  async #settle(message: Extract<OrgMessage, { type: "settle" }>): Promise<SettleReply> {
    const { holdId, costMicro } = message;
    requireAmount(costMicro, { field: "costMicro", min: 0n });
    const { billing, clock } = this.#deps;
    const charged = { holdId, chargedMicro: costMicro, alreadySettled: false };
    return await conditionalWrite({
      what: `settle hold ${holdId}`,
      attempts: COMMIT_ATTEMPTS,
      // First with the hold; once a commit was refused with the hold gone, without it.
      initial: true,
      load: () => Promise.resolve(false),
      apply: async (holdStored) => {
        const next = await billing.commit(this.#id, settleChange(message, { atMs: clock(), holdStored }));
        this.#memory.gone(holdId);
        if (next) {
          this.#memory.account(next);
          return { ...charged, balanceAfterMicro: next.balanceMicro, availableAfterMicro: available(next) };
        }
        // The hold is gone: settled before (a repeat), or released or expired before the call
        // finished — the call happened all the same, so charge it without the hold. A hold id that
        // was never reserved is not a call this org made.
        const settled = await billing.findSettlement(this.#id, holdId);
        if (settled) return repeatedSettle(settled, message, available(await this.#account()));
        if (!(await billing.findReservation(this.#id, holdId))) {
          throw new ServiceError("not_found", `Hold not found: ${holdId}`, { details: { holdId } });
        }
        return LOST;
      },
    });
  }

  async #release(holdId: string): Promise<ReleaseReply> {
    const next = await this.#deps.billing.commit(this.#id, {
      atMs: this.#deps.clock(),
      removeHoldId: holdId,
    });
    this.#memory.gone(holdId);
    if (next) this.#memory.account(next);
    return { released: next !== null };
  }

  /** Releases this org's holds that expired by `nowMs`; returns how many. */
  async #releaseExpired(nowMs: number): Promise<number> {
    let released = 0;
    for (const hold of await this.#deps.billing.listHolds(this.#id)) {
      if (hold.expiresAtMs <= nowMs && (await this.#release(hold.id)).released) released++;
    }
    return released;
  }

  async #changeMiners(message: MinerMessage): Promise<MinerReply> {
    const { orgs, members } = this.#deps;
    const outcome = await changeMiners(members ? { orgs, members } : { orgs }, this.#id, message, {
      atMs: this.#deps.clock(),
    });
    return { outcome, view: await this.#view() };
  }

  async #view(): Promise<OrgView> {
    const { orgs } = this.#deps;
    const [org, account, miners] = await Promise.all([
      orgs.get(this.#id),
      this.#account(),
      orgs.listMiners(this.#id),
    ]);
    if (!org) throw new Error(`Cannot read organisation: ${this.#id} vanished`);
    this.#org = org;
    return { org, balance: balanceOf(account), miners };
  }

  /** Loads the org if this instance has not seen it yet (another instance may have created it). */
  async #requireOrg(): Promise<void> {
    this.#org ??= await this.#deps.orgs.get(this.#id);
    if (!this.#org) throw new ServiceError("not_found", `Organisation not found: ${this.#id}`);
  }

  #creditDeps(): CreditDeps {
    const { billing, clock } = this.#deps;
    return { orgId: this.#id, billing, clock, memory: this.#memory, account: () => this.#account() };
  }

  /** The account as stored now (another instance may have changed it). */
  async #account(): Promise<OrgAccount> {
    const account = await this.#deps.billing.getAccount(this.#id);
    if (!account) throw new Error(`Cannot read account: organisation ${this.#id} has none`);
    return account;
  }
}

/**
 * The OrgActor kind ("org"): activation loads the org record from storage. Settle and release
 * end a hold, so they are must-complete (`endsHold`). Reserves, settles and releases waiting
 * together are batched (`isMoney`, at most the store's `maxBatch`).
 */
export function orgActorKind(deps: OrgActorDeps): ActorKind<OrgMessages> {
  return {
    name: "org",
    activate: async (id) => new OrgActor(id, deps, await deps.orgs.get(id)),
    mustComplete: endsHold,
    batchable: isMoney,
    maxBatch: deps.billing.maxBatch,
  };
}
