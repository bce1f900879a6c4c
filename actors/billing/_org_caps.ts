/**
 * The spend caps of a capped reserve (`SpendCaps`, docs/billing.md "Spend caps of validator
 * completions"): the hold's caps and limits as storage keeps them, the checks of their limits, and
 * the 402 of the first counter a hold does not fit. Private to actors/billing.
 */
import { ServiceError } from "../kernel/mod.ts";
import { requireAmount } from "./org_account.ts";
import type { SpendCaps } from "./org_messages.ts";
import {
  capCounters,
  type CapLimits,
  counterKey,
  counterLimit,
  type HoldCap,
  type SpendCounter,
} from "../../storage/spend_caps.ts";
import type { BillingStore } from "../../storage/billing_store.ts";

/** The caps of a hold taken on `day` (its UTC day), as stored with the hold. */
export function holdCapOf(caps: SpendCaps, day: string): HoldCap {
  return {
    minerHotkey: caps.minerHotkey,
    day,
    ...(caps.validator ? { validatorHotkey: caps.validator.hotkey } : {}),
    ...(caps.lease ? { agentPredictionId: caps.lease.agentPredictionId } : {}),
  };
}

/** The limits of the counters of `caps`. */
export function capLimitsOf(caps: SpendCaps): CapLimits {
  return {
    dailyMicro: caps.limitMicro,
    ...(caps.validator ? { validatorMicro: caps.validator.limitMicro } : {}),
    ...(caps.lease ? { leaseMicro: caps.lease.limitMicro } : {}),
  };
}

/** The counters a hold taken on `day` under `caps` moves (daily, validator, lease). */
export function countersOf(caps: SpendCaps, day: string): SpendCounter[] {
  return capCounters(holdCapOf(caps, day));
}

/** Throws 400 naming the first limit of `caps` that is not an amount (0..2^63 − 1). */
export function requireCapLimits(caps: SpendCaps): void {
  requireAmount(caps.limitMicro, { field: "cap.limitMicro", min: 0n });
  if (caps.validator) {
    requireAmount(caps.validator.limitMicro, { field: "cap.validator.limitMicro", min: 0n });
  }
  if (caps.lease) requireAmount(caps.lease.limitMicro, { field: "cap.lease.limitMicro", min: 0n });
}

/**
 * 402 `spend_cap_reached` for the first counter of `caps` that `amountMicro` does not fit, given
 * what each has spent (`spentOf`); null when it fits them all.
 */
export function capRefusal(
  caps: SpendCaps,
  at: { day: string; amountMicro: bigint; spentOf: (counter: SpendCounter) => bigint },
): ServiceError | null {
  const limits = capLimitsOf(caps);
  for (const counter of countersOf(caps, at.day)) {
    const limitMicro = counterLimit(counter, limits);
    const spentMicro = at.spentOf(counter);
    if (spentMicro + at.amountMicro > limitMicro) {
      return spendCapReached(counter, { limitMicro, spentMicro, amountMicro: at.amountMicro });
    }
  }
  return null;
}

/**
 * Throws the 402 `spend_cap_reached` of the first cap of `caps` a hold of `amountMicro` taken on
 * `day` does not fit, as storage counts them now (a refused reserve's answer); returns when it fits.
 */
export async function refuseOverCap(
  billing: Pick<BillingStore, "capSpent">,
  caps: SpendCaps,
  at: { day: string; amountMicro: bigint },
): Promise<void> {
  const read = countersOf(caps, at.day).map(async (counter) =>
    [counterKey(counter), await billing.capSpent(counter)] as const
  );
  const spent = new Map(await Promise.all(read));
  const refusal = capRefusal(caps, { ...at, spentOf: (counter) => spent.get(counterKey(counter)) ?? 0n });
  if (refusal) throw refusal;
}

const REACHED: Record<SpendCounter["cap"], string> = {
  daily: "The miner's daily cap on validator completions is spent",
  validator: "This validator's daily cap on the miner's completions is spent",
  lease: "The lease's cap on LLM calls is spent",
};

/** 402 `spend_cap_reached` for a hold that does not fit what is left of `counter`'s cap. */
export function spendCapReached(
  counter: SpendCounter,
  at: { limitMicro: bigint; spentMicro: bigint; amountMicro: bigint },
): ServiceError {
  const { cap: _cap, ...names } = counter;
  return new ServiceError("spend_cap_reached", REACHED[counter.cap], {
    details: {
      cap: counter.cap,
      ...names,
      capMicro: at.limitMicro.toString(),
      spentMicro: at.spentMicro.toString(),
      requestedMicro: at.amountMicro.toString(),
    },
  });
}
