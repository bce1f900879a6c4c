import type { UsageInput } from "../billing/mod.ts";
import type { CompletionCharge } from "./completion_charge.ts";

/** Who made a call, for its usage record. */
export interface CallParties {
  requestId: string;
  keyId?: string;
  minerHotkey?: string;
  /** The validator that made the call for a miner's agent (validator route). */
  validatorHotkey?: string;
  /** The lease whose agent run made the call (validator route). */
  agentPredictionId?: string;
  /** When the claim of that lease the call was made under was leased (its lease outcome is that claim's). */
  leasedAtMs?: number;
}

/**
 * The usage record of a settled completion (written with the settle, in the same commit): the
 * provider, model, tokens, both costs, the hold, what the charge was based on, the latency and
 * the request id, and on the validator route the validator, the lease and its claim. Amounts are decimal
 * strings. Never a prompt, an output or a key.
 */
export function completionUsage(
  call: { provider: string; model: string; charge: CompletionCharge },
  parties: CallParties,
): UsageInput {
  const { provider, model, charge } = call;
  return {
    ...(parties.keyId === undefined ? {} : { keyId: parties.keyId }),
    ...(parties.minerHotkey === undefined ? {} : { minerHotkey: parties.minerHotkey }),
    description: `${provider}/${model}`,
    metadata: {
      provider,
      model,
      promptTokens: charge.usage.promptTokens,
      completionTokens: charge.usage.completionTokens,
      totalTokens: charge.usage.totalTokens,
      providerCostMicro: charge.providerCostMicro.toString(),
      costMicro: charge.costMicro.toString(),
      holdMicro: charge.holdMicro.toString(),
      markupBps: charge.markupBps,
      basis: charge.basis,
      latencyMs: charge.latencyMs,
      outcome: "settled",
      requestId: parties.requestId,
      ...(parties.validatorHotkey === undefined ? {} : { validatorHotkey: parties.validatorHotkey }),
      ...(parties.agentPredictionId === undefined ? {} : { agentPredictionId: parties.agentPredictionId }),
      ...(parties.leasedAtMs === undefined ? {} : { leasedAtMs: parties.leasedAtMs }),
      ...(charge.providerReportedCostUsd === undefined
        ? {}
        : { providerReportedCostUsd: charge.providerReportedCostUsd }),
    },
  };
}
