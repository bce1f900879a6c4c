import type { BilledCompletion } from "../../actors/gateway/mod.ts";

/** The flat completion envelope both gateway routes answer (amounts as decimal strings). */
export function completionJson(result: BilledCompletion) {
  return {
    provider: result.provider,
    model: result.model,
    output: result.output,
    usage: {
      promptTokens: result.usage.promptTokens,
      completionTokens: result.usage.completionTokens,
      totalTokens: result.usage.totalTokens,
    },
    costMicro: result.costMicro.toString(),
    providerCostMicro: result.providerCostMicro.toString(),
    markupBps: result.markupBps,
    balanceAfterMicro: result.balanceAfterMicro.toString(),
  };
}
