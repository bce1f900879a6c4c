/**
 * One billed call's hold on its paying organisation's OrgActor, under one id from first ask to
 * last: reserve, then settle or release (docs/billing.md, "Balance, holds, available"). Settle and
 * release are must-complete messages: a client that goes away stops neither (docs/runtime.md).
 */
import type { AskOrg, SpendCaps, UsageInput } from "../billing/mod.ts";
import { type Logger, ServiceError } from "../kernel/mod.ts";

/**
 * What became of a reserve: made; refused by the org (nothing held: `refusal`, such as 402); or
 * unknown (`error`: the ask timed out, the mailbox was full, something failed unexpectedly), in
 * which case the hold may exist all the same.
 */
export type ReserveOutcome =
  | { kind: "held" }
  | { kind: "refused"; refusal: ServiceError }
  | { kind: "unknown"; error: unknown };

/**
 * The outcome of a reserve that failed with `error`: the org's own answer is a `ServiceError` it
 * decided (nothing was held); a 503 `unavailable` or an `internal_error` says only that the answer
 * did not come, and anything else is a failure on the way: the hold may have been made.
 */
export function failedReserve(error: unknown): ReserveOutcome {
  const decided = error instanceof ServiceError && error.code !== "unavailable" &&
    error.code !== "internal_error";
  return decided ? { kind: "refused", refusal: error } : { kind: "unknown", error };
}

/**
 * The hold id of a call: its request id (so a hold, its ledger debit and its usage record lead back
 * to the request's logs) and a random part, since a client may send the same `X-Request-Id` twice
 * and each call must get its own hold.
 */
export function holdIdFor(requestId: string): string {
  return `gw_${requestId}_${crypto.randomUUID()}`;
}

/** One call's hold on the org that pays for it. */
export class OrgHold {
  readonly orgId: string;
  readonly holdId: string;
  readonly requestId: string;
  readonly #askOrg: AskOrg;
  readonly #log: Logger;

  constructor(payer: { orgId: string; requestId: string }, deps: { askOrg: AskOrg; log: Logger }) {
    this.orgId = payer.orgId;
    this.requestId = payer.requestId;
    this.holdId = holdIdFor(payer.requestId);
    this.#askOrg = deps.askOrg;
    this.#log = deps.log;
  }

  /** Asks the org to hold `amountMicro` (within the spend caps `cap`, when given); never rejects. */
  async reserve(amountMicro: bigint, options: { cap?: SpendCaps | undefined } = {}): Promise<ReserveOutcome> {
    const { cap } = options;
    try {
      await this.#askOrg(this.orgId, {
        type: "reserve",
        amountMicro,
        holdId: this.holdId,
        ...(cap ? { cap } : {}),
      });
      return { kind: "held" };
    } catch (error) {
      return failedReserve(error);
    }
  }

  /** Charges `costMicro` with its usage record and drops the hold; answers the org's available balance after. */
  async settle(costMicro: bigint, usage: UsageInput): Promise<bigint> {
    const reply = await this.#askOrg(this.orgId, { type: "settle", holdId: this.holdId, costMicro, usage });
    return reply.availableAfterMicro;
  }

  /**
   * Drops the hold without charging (a no-op when there is none); never rejects. A release that
   * fails is logged as `failure` at error level: the hold then expires and the hold-expiry job
   * releases it, so the org is never charged.
   */
  async release(failure: string): Promise<void> {
    try {
      await this.#askOrg(this.orgId, { type: "release", holdId: this.holdId });
    } catch (error) {
      this.#log({ level: "error", msg: failure, requestId: this.requestId, error: String(error) });
    }
  }
}
