import { isoAt } from "../kernel/mod.ts";
import type { BalanceReply, OrgMessage, SettleReply } from "./org_messages.ts";
import {
  type AccountChange,
  type LedgerEntry,
  MAX_MICRO,
  type OrgAccount,
} from "../../storage/billing_store.ts";
import { ServiceError } from "../kernel/mod.ts";

/** What the next reserve may take: the balance minus the holds of calls in flight. */
export function available(account: OrgAccount): bigint {
  return account.balanceMicro - account.heldMicro;
}

/** The reply to `balance` for a stored account. */
export function balanceOf(account: OrgAccount): BalanceReply {
  return {
    balanceMicro: account.balanceMicro,
    heldMicro: account.heldMicro,
    availableMicro: available(account),
    lastUsageAt: account.lastUsageAtMs === null ? null : isoAt(account.lastUsageAtMs),
  };
}

/** 400 `invalid_request` naming one field, in the shape `parseOrThrow` uses. */
export function invalidField(field: string, problem: string): ServiceError {
  return new ServiceError("invalid_request", `Invalid ${field}`, {
    details: { fields: [{ field, problem }] },
  });
}

/** Throws 400 `invalid_request` naming `field` unless `min <= value <= 2^63 − 1`. */
export function requireAmount(value: bigint, options: { field: string; min: bigint }): void {
  const { field, min } = options;
  if (value < min || value > MAX_MICRO) {
    throw invalidField(field, `Must be an integer from ${min} to 2^63-1 micro-units`);
  }
}

/** 400 for a credit the store refused because the balance would pass the BIGINT maximum. */
export function overMaximum(): ServiceError {
  return invalidField("amountMicro", "Credit would take the balance over 2^63-1 micro-units");
}

/** The commit that settles `message`: the debit and usage record, and the hold if still stored. */
export function settleChange(
  message: Extract<OrgMessage, { type: "settle" }>,
  options: { atMs: number; holdStored: boolean },
): AccountChange {
  const { holdId, costMicro, usage } = message;
  return {
    atMs: options.atMs,
    ...(options.holdStored ? { removeHoldId: holdId } : {}),
    entry: { kind: "debit", amountMicro: -costMicro, holdId },
    usage: {
      holdId,
      amountMicro: costMicro,
      keyId: usage.keyId ?? null,
      minerHotkey: usage.minerHotkey ?? null,
      description: usage.description,
      metadata: usage.metadata ?? {},
    },
  };
}

/**
 * The reply to a repeated settle: the first settlement (`alreadySettled`), or 409 when the repeat
 * names another cost (it is not the same call).
 */
export function repeatedSettle(
  settled: LedgerEntry,
  request: { holdId: string; costMicro: bigint },
  availableAfterMicro: bigint,
): SettleReply {
  const { holdId, costMicro } = request;
  const chargedMicro = -settled.amountMicro;
  if (chargedMicro !== costMicro) {
    throw new ServiceError("conflict", "Hold was already settled with another cost", {
      details: { holdId, chargedMicro: chargedMicro.toString(), costMicro: costMicro.toString() },
    });
  }
  return {
    holdId,
    chargedMicro,
    balanceAfterMicro: settled.balanceAfterMicro,
    availableAfterMicro,
    alreadySettled: true,
  };
}

/** 409 for a reserve naming a hold id used before (another amount, or settled, released or expired). */
export function holdIdInUse(holdId: string): ServiceError {
  return new ServiceError("conflict", `Hold id is already in use: ${holdId}`, { details: { holdId } });
}

/** 402 `insufficient_credits` for a reserve above what is available. */
export function insufficientCredits(requestedMicro: bigint, availableMicro: bigint): ServiceError {
  return new ServiceError("insufficient_credits", "Insufficient credits for this call", {
    details: { requestedMicro: requestedMicro.toString(), availableMicro: availableMicro.toString() },
  });
}
