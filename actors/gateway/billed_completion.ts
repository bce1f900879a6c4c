/**
 * One billed completion, independent of HTTP and of where the money lives (docs/gateway.md,
 * "Pricing and the hold"): hold the worst case, call the provider outside the org's mailbox, settle the
 * actual cost (never above the hold), or release the hold on any failure. The caller gives the three
 * billing steps as callbacks bound to its hold id (an OrgActor's reserve, settle and release).
 */
import { type Clock, type Logger, ServiceError } from "../kernel/mod.ts";
import type { CompletionRequest } from "./chat_request.ts";
import { type CallCost, callCost, type TokenCounts, worstCaseTokens } from "./pricing.ts";
import {
  type CompletionResult,
  type ProviderAdapter,
  ProviderError,
  type TokenUsage,
} from "./provider_adapter.ts";
import type { ResolvedModel } from "./provider_catalog.ts";

/**
 * What the org is charged from: the provider's usage, or the hold — when the provider reported
 * no usage, or when its usage costs more than the hold (a tokenizer outside the bound's premise).
 */
export type ChargeBasis = "usage" | "hold_no_usage" | "hold_over_bound";

/** The charge of a completed call, as settled. */
export interface CompletionCharge {
  holdMicro: bigint;
  costMicro: bigint;
  /** What the provider cost: from its usage, or the hold's bound when it reported none. */
  providerCostMicro: bigint;
  markupBps: number;
  basis: ChargeBasis;
  /** The provider's usage; the hold's bound when it reported none (`basis: "hold_no_usage"`). */
  usage: TokenUsage;
  providerReportedCostUsd?: string;
  /** Time of the upstream call, from the injected clock. */
  latencyMs: number;
}

export interface BilledCompletion extends CompletionCharge {
  provider: string;
  model: string;
  output: string;
  /** What the org has available right after the settle, as the settle callback answered. */
  balanceAfterMicro: bigint;
}

export interface BilledCompletionOptions {
  /** Holds `amountMicro` under the caller's hold id; rejects 402 when it does not fit. */
  reserve(amountMicro: bigint): Promise<unknown>;
  /** Charges `charge.costMicro` and drops the hold (must complete); answers the available balance after. */
  settle(charge: CompletionCharge): Promise<{ balanceAfterMicro: bigint }>;
  /** Drops the hold without charging (must complete; a no-op when there is none). */
  release(): Promise<unknown>;
  adapter: ProviderAdapter;
  clock: Clock;
  log: Logger;
  /** Aborts the upstream call (shutdown): the call then fails and its hold is released. */
  signal?: AbortSignal;
  /** Named in log lines. */
  requestId?: string;
  /** Told every charge's basis (the metric of calls charged the hold). */
  onCharge?: (provider: string, basis: ChargeBasis) => void;
}

/** The hold of a call: its worst-case cost, at least 1 micro-unit so that a free model is held too. */
export function completionHold(resolved: ResolvedModel, request: CompletionRequest): CallCost & TokenCounts {
  const bound = worstCaseTokens(request.messages, request.maxTokens);
  const cost = callCost(bound, resolved);
  return { ...bound, ...cost, costMicro: cost.costMicro > 0n ? cost.costMicro : 1n };
}

/**
 * Runs one billed call: 402 and no upstream call when the hold does not fit; the upstream's
 * failures as docs/gateway.md ("Upstream outcomes") maps them (never a 500), each with the hold released.
 */
export async function runBilledCompletion(
  call: { resolved: ResolvedModel; request: CompletionRequest },
  options: BilledCompletionOptions,
): Promise<BilledCompletion> {
  const { resolved, request } = call;
  if (request.maxTokens > resolved.maxOutputTokens) {
    throw new ServiceError("invalid_request", "Invalid maxTokens", {
      details: { fields: [{ field: "maxTokens", problem: `must be at most ${resolved.maxOutputTokens}` }] },
    });
  }
  const hold = completionHold(resolved, request);
  await reserveHold(hold.costMicro, options);
  const started = options.clock();
  let result: CompletionResult;
  try {
    result = await options.adapter.complete(request, options.signal ? { signal: options.signal } : {});
  } catch (error) {
    const answer = failureAnswer(error, { ...options, provider: resolved.provider.id });
    await releaseQuietly(options, "the provider call failed");
    throw answer;
  }
  const charge = chargeOf(result, { hold, resolved, latencyMs: options.clock() - started });
  options.onCharge?.(resolved.provider.id, charge.basis);
  if (charge.basis !== "usage") logHoldCharged(charge, { ...options, provider: resolved.provider.id });
  const { balanceAfterMicro } = await options.settle(charge);
  return {
    ...charge,
    provider: resolved.provider.id,
    model: request.model,
    output: result.output,
    balanceAfterMicro,
  };
}

/**
 * Reserves the hold. When the reserve's outcome is unknown (the caller timed out, the mailbox
 * was full, an unexpected failure), the hold may exist all the same: it is released.
 */
async function reserveHold(amountMicro: bigint, options: BilledCompletionOptions): Promise<void> {
  try {
    await options.reserve(amountMicro);
  } catch (error) {
    const known = error instanceof ServiceError && error.code !== "unavailable" &&
      error.code !== "internal_error";
    if (!known) await releaseQuietly(options, "the reserve's outcome is unknown");
    throw error;
  }
}

/** What the org pays for a completed call: never more than the hold. */
function chargeOf(
  result: CompletionResult,
  at: { hold: CallCost & TokenCounts; resolved: ResolvedModel; latencyMs: number },
): CompletionCharge {
  const { hold, resolved, latencyMs } = at;
  const common = {
    holdMicro: hold.costMicro,
    markupBps: resolved.markupBps,
    latencyMs,
    ...(result.providerReportedCostUsd === undefined
      ? {}
      : { providerReportedCostUsd: result.providerReportedCostUsd }),
  };
  if (!result.usage) {
    const { promptTokens, completionTokens } = hold;
    const usage = { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
    return {
      ...common,
      basis: "hold_no_usage",
      usage,
      costMicro: hold.costMicro,
      providerCostMicro: hold.providerCostMicro,
    };
  }
  const actual = callCost(result.usage, resolved);
  const over = actual.costMicro > hold.costMicro;
  return {
    ...common,
    basis: over ? "hold_over_bound" : "usage",
    usage: result.usage,
    costMicro: over ? hold.costMicro : actual.costMicro,
    providerCostMicro: actual.providerCostMicro,
  };
}

type LogContext = BilledCompletionOptions & { provider: string };

/** The client's answer to a failed upstream call, logged (an account failure at error level). */
function failureAnswer(error: unknown, at: LogContext): ServiceError {
  const { log, provider, requestId } = at;
  if (error instanceof ProviderError) {
    const account = error.failure === "account";
    log({
      level: account ? "error" : "warn",
      msg: account ? "provider refused the operator's account or key" : "provider call failed",
      provider,
      requestId,
      failure: error.failure,
      status: error.status,
      reason: error.reason,
    });
    return error.toServiceError();
  }
  if (at.signal?.aborted) {
    return new ServiceError("unavailable", "The call was cancelled: the service is shutting down", {
      details: { provider },
      retryAfterSeconds: 1,
    });
  }
  log({
    level: "error",
    msg: "provider adapter failed unexpectedly",
    provider,
    requestId,
    error: String(error),
  });
  return new ServiceError("upstream_error", "The provider failed", { details: { provider } });
}

async function releaseQuietly(options: BilledCompletionOptions, why: string): Promise<void> {
  try {
    await options.release();
  } catch (error) {
    // The hold then expires and the hold-expiry job releases it: the org is never charged.
    options.log({
      level: "error",
      msg: `cannot release hold after ${why}`,
      requestId: options.requestId,
      error: String(error),
    });
  }
}

function logHoldCharged(charge: CompletionCharge, at: LogContext): void {
  at.log({
    level: "warn",
    msg: charge.basis === "hold_no_usage"
      ? "provider reported no usage: charged the hold"
      : "usage above the hold: charged the hold",
    provider: at.provider,
    requestId: at.requestId,
    holdMicro: charge.holdMicro.toString(),
  });
}
