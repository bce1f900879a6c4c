/**
 * The early hold of a customer completion (docs/gateway.md, "The early hold"): while the key's
 * storage step (its check and count) is in flight, the call's hold is reserved beside it, so a
 * paid call waits for one storage round trip before the provider instead of two.
 *
 * The call takes the hold over when it gets that far with the same amount; on every other answer
 * (401, 429, 403 `miner_not_registered`, 503) it is released before the answer goes out, so
 * nobody pays for a refused call.
 */
import type { CompletionCall } from "./chat_request.ts";
import type { OrgHold, ReserveOutcome } from "./_org_hold.ts";

/**
 * Largest body held early. The early path checks the body against the schema once more than the
 * route does (a few µs of CPU a kilobyte): beyond this the CPU costs more than the round trip
 * saved, and the call reserves as before.
 */
export const EARLY_MAX_BYTES = 64 * 1024;

/** A call's body as it can be read before its key is admitted. */
export interface EarlyBody {
  /** Its declared length in bytes. */
  bytes: number;
  /**
   * Reads it and checks it as the route will (the route's gate then waits for this same read):
   * the call, or null when the route will refuse it. Never rejects.
   */
  read(): Promise<CompletionCall | null>;
}

/** A request whose hold may be reserved early: its id and its body. */
export interface EarlyCall {
  requestId: string;
  body: EarlyBody;
}

/** What the early reserve came to: not asked (no call to hold for, or answered first), or asked for an amount. */
type Early = { kind: "not_asked" } | { kind: "asked"; amountMicro: bigint; reserve: ReserveOutcome };

/** One request's early hold: reserved once its body is read, then taken over by its call or released. */
export class EarlyHold {
  readonly #hold: OrgHold;
  readonly #early: Promise<Early>;
  /** The reserve was asked: from then on a hold may exist until its outcome says otherwise. */
  #asked = false;
  /** The request was answered before the reserve was asked: it never will be. */
  #cancelled = false;
  /** The call took the hold over (it settles or releases it). */
  #taken = false;

  /** Reserves `hold` for the amount `amountMicro` resolves to (null: none to hold), unless answered first. */
  constructor(hold: OrgHold, amountMicro: Promise<bigint | null>) {
    this.#hold = hold;
    this.#early = this.#reserve(amountMicro);
  }

  /**
   * Hands the hold to the call of `amountMicro`, which settles or releases it from then on, with
   * the early reserve's outcome: made, or unknown (the call asks again under the same id: a repeat
   * answers the hold if the first ask made it, so the call never holds twice); or the org's
   * refusal of that same amount, which the call answers (asking again would ask the same question
   * twice). Null when there is none of these and the call reserves its own.
   */
  async take(amountMicro: bigint): Promise<{ hold: OrgHold; reserve: ReserveOutcome } | null> {
    if (this.#taken) return null;
    const early = await this.#early;
    if (early.kind === "not_asked" || early.amountMicro !== amountMicro) return null;
    if (early.reserve.kind !== "refused") this.#taken = true;
    return { hold: this.#hold, reserve: early.reserve };
  }

  /**
   * Releases the hold unless its call took it over (a release of a hold never made is a no-op). A
   * reserve not asked yet never will be, so a refusal is not held back by a body still arriving;
   * one asked is waited for and released, before the answer goes out.
   */
  async undo(): Promise<void> {
    if (this.#taken) return;
    if (!this.#asked) return void (this.#cancelled = true);
    const early = await this.#early;
    if (this.#taken || early.kind === "not_asked" || early.reserve.kind === "refused") return;
    await this.#hold.release("cannot release an early hold");
  }

  async #reserve(amount: Promise<bigint | null>): Promise<Early> {
    const amountMicro = await amount;
    if (amountMicro === null || this.#cancelled) return { kind: "not_asked" };
    this.#asked = true;
    return { kind: "asked", amountMicro, reserve: await this.#hold.reserve(amountMicro) };
  }
}
