import { isoAt, ServiceError } from "../kernel/mod.ts";
import { type RateWindow, secondsUntilReset } from "../keys/mod.ts";
import { type ConsumedAndCounted, type SignedUse, useAdmits } from "../../storage/nonce_store.ts";
import { nonceReused } from "./_signature_refusals.ts";

/** What judging a use needs besides the use: the window it counted in, the clock for `Retry-After`. */
export interface UseContext {
  window: RateWindow;
  now: () => number;
}

/**
 * Steps 7–8 of docs/signatures.md's order as made (`consumeCounting`, or a store with the change): null when
 * they let the request go on; else its refusal: a used nonce → 401 `nonce_reused` whatever the count,
 * a fresh nonce over the validator's rate → 429 `rate_limited` (its nonce used up).
 */
export function useRefusal(
  use: SignedUse,
  made: ConsumedAndCounted,
  context: UseContext,
): ServiceError | null {
  if (useAdmits(use, made)) return null;
  if (!made.fresh) return nonceReused();
  const { window } = context;
  return new ServiceError("rate_limited", "Signed request rate of this validator hotkey exceeded", {
    retryAfterSeconds: secondsUntilReset(window, context.now()),
    details: { limit: use.maxCount, windowResetsAt: isoAt(window.endMs) },
  });
}

/**
 * A validator request's nonce use and rate hit (steps 7–8), verified but not yet made: the route
 * hands it (`take`) to the store call that makes its change, which makes it in the same atomic
 * step (one commit); a request that ends before that call has it made alone, after the route
 * answered (`SignatureGuard.useAlone`). Taken once.
 */
export class PendingUse {
  readonly #use: SignedUse;
  readonly #context: UseContext;
  #taken = false;

  constructor(use: SignedUse, context: UseContext) {
    this.#use = use;
    this.#context = context;
  }

  /** True once a store call (or `useAlone`) was handed the use. */
  get taken(): boolean {
    return this.#taken;
  }

  /** The use, for the one store call that makes it. */
  take(): SignedUse {
    if (this.#taken) throw new Error("A signed request's nonce use was taken twice");
    this.#taken = true;
    return this.#use;
  }

  /** The refusal of the use as the store made it (`useRefusal`). */
  refusal(made: ConsumedAndCounted): ServiceError | null {
    return useRefusal(this.#use, made, this.#context);
  }
}
