/**
 * What a billed completion holds and what it is charged (docs/gateway.md, "Pricing and the hold"):
 * the worst case before the call, the actual cost after it, never more than the hold.
 */
import type { CompletionRequest } from "./chat_request.ts";
import { type CallCost, callCost, type TokenCounts, worstCaseTokens } from "./pricing.ts";
import type { CompletionResult, TokenUsage } from "./provider_adapter.ts";
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

/** The hold of a call and the token bound it prices. */
export type CompletionHold = CallCost & TokenCounts;

/** The hold of a call: its worst-case cost, at least 1 micro-unit so that a free model is held too. */
export function completionHold(resolved: ResolvedModel, request: CompletionRequest): CompletionHold {
  const bound = worstCaseTokens(request.messages, request.maxTokens);
  const cost = callCost(bound, resolved);
  return { ...bound, ...cost, costMicro: cost.costMicro > 0n ? cost.costMicro : 1n };
}

/** What the org pays for a completed call: its usage's cost, never more than the hold. */
export function completionCharge(
  result: CompletionResult,
  at: { hold: CompletionHold; resolved: ResolvedModel; latencyMs: number },
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
