/**
 * One billed completion as both gateway routes make it: the catalog resolves the provider and
 * model, and `runBilledCompletion` holds, calls and settles on the paying org's OrgActor, under a
 * hold id made from the request id. The usage record is written by the settle, in its commit.
 */
import type { AskOrg, DailyCap } from "../../actors/billing/mod.ts";
import {
  type AdapterRegistry,
  type BilledCompletion,
  type CallParties,
  type ChargeBasis,
  type CompletionRequest,
  completionUsage,
  type ProviderCatalog,
  runBilledCompletion,
} from "../../actors/gateway/mod.ts";
import type { Clock, Logger, ServiceError } from "../../actors/kernel/mod.ts";
import type { CompletionRequestBody } from "./gateway_api.ts";

/** What a billed call needs from the running service. */
export interface BilledCallDeps {
  catalog: ProviderCatalog;
  adapters: AdapterRegistry;
  askOrg: AskOrg;
  clock: Clock;
  log: Logger;
  /** Told each settled call's charge basis (`fgw_gateway_charges_total`). */
  onCharge?: (provider: string, basis: ChargeBasis) => void;
}

/**
 * A hold asked for the call before it reached its handler (the early hold): its id, and whether
 * it was made (else its outcome is unknown and it is asked again under that id); or the org's refusal.
 */
export type TakenHold = { holdId: string; reserved: boolean } | { refusal: ServiceError };

/** Who pays for a call and who made it. */
export interface Payer extends CallParties {
  orgId: string;
  /** The miner's daily cap the hold counts against (validator completions). */
  cap?: DailyCap;
  /**
   * Takes over a hold of exactly this amount already asked for the call (the early hold): its id,
   * or the org's refusal of it; null when there is none and the call reserves its own.
   */
  takeHold?: (amountMicro: bigint) => Promise<TakenHold | null>;
}

/**
 * The hold id of a call: its request id (so a hold, its ledger debit and its usage record lead back
 * to the request's logs) and a random part, since a client may send the same `X-Request-Id` twice
 * and each call must get its own hold.
 */
export function holdIdFor(requestId: string): string {
  return `gw_${requestId}_${crypto.randomUUID()}`;
}

/** The adapter's request: the body without routing and billing fields. */
export function adapterRequest(body: CompletionRequestBody): CompletionRequest {
  const { model, messages, maxTokens, temperature, topP, stop } = body;
  return {
    model,
    messages,
    maxTokens,
    ...(temperature === undefined ? {} : { temperature }),
    ...(topP === undefined ? {} : { topP }),
    ...(stop === undefined ? {} : { stop }),
  };
}

/**
 * Runs one billed call for `payer`: 400 naming `provider` or `model` for one the catalog does not
 * serve, 402 when the hold does not fit (the provider is never called), the provider's failures
 * as docs/gateway.md maps them (each with the hold released), else the charged completion with
 * the org's available balance right after the settle.
 */
export async function billedCall(
  deps: BilledCallDeps,
  body: CompletionRequestBody,
  payer: Payer,
): Promise<BilledCompletion> {
  const resolved = deps.catalog.resolve(body.provider, body.model);
  const { orgId, cap, takeHold, ...parties } = payer;
  let holdId = holdIdFor(payer.requestId);
  return await runBilledCompletion({ resolved, request: adapterRequest(body) }, {
    reserve: async (amountMicro) => {
      const taken = await takeHold?.(amountMicro);
      if (taken && "refusal" in taken) throw taken.refusal;
      if (taken) holdId = taken.holdId;
      if (taken?.reserved) return;
      await deps.askOrg(orgId, { type: "reserve", amountMicro, holdId, ...(cap ? { cap } : {}) });
    },
    settle: async (charge) => {
      const usage = completionUsage({ provider: resolved.provider.id, model: body.model, charge }, parties);
      const reply = await deps.askOrg(orgId, { type: "settle", holdId, costMicro: charge.costMicro, usage });
      return { balanceAfterMicro: reply.availableAfterMicro };
    },
    release: () => deps.askOrg(orgId, { type: "release", holdId }),
    adapter: deps.adapters.get(resolved.provider.id),
    clock: deps.clock,
    log: deps.log,
    requestId: payer.requestId,
    ...(deps.onCharge ? { onCharge: deps.onCharge } : {}),
  });
}

/** The flat completion envelope (amounts as decimal strings). */
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
