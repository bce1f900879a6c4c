/**
 * The one owner of a billed completion, from its early hold to its settle (docs/gateway.md, "One
 * billed call"): both gateway routes parse their request, ask the desk and render its answer. It
 * holds the worst case on the paying org's OrgActor, calls the provider outside the org's mailbox,
 * settles the actual cost (never above the hold) with the usage record, or releases the hold on
 * any failure.
 */
import type { AskOrg, SpendCaps } from "../billing/mod.ts";
import { type Clock, type Logger, ServiceError } from "../kernel/mod.ts";
import { adapterRequest, type CompletionCall, type CompletionRequest } from "./chat_request.ts";
import {
  type ChargeBasis,
  type CompletionCharge,
  completionCharge,
  type CompletionHold,
  completionHold,
} from "./completion_charge.ts";
import { type CallParties, completionUsage } from "./completion_usage.ts";
import { EARLY_MAX_BYTES, type EarlyBody, type EarlyCall, EarlyHold } from "./early_hold.ts";
import { failedCallAnswer } from "./_failed_call_answer.ts";
import { OrgHold } from "./_org_hold.ts";
import type { CompletionResult, ProviderAdapter } from "./provider_adapter.ts";
import type { ProviderCatalog, ResolvedModel } from "./provider_catalog.ts";

/** What the desk needs from the running service. */
export interface CompletionDeskDeps {
  catalog: ProviderCatalog;
  /** The adapter of each provider the catalog resolves (an `AdapterRegistry`). */
  adapters: { get(providerId: string): ProviderAdapter };
  askOrg: AskOrg;
  clock: Clock;
  log: Logger;
  /** Told each settled call's charge basis (`fgw_gateway_charges_total`). */
  onCharge?: (provider: string, basis: ChargeBasis) => void;
}

/** A completed call, as charged. */
export interface BilledCompletion extends CompletionCharge {
  provider: string;
  model: string;
  output: string;
  /** What the org has available right after the settle, as the OrgActor answered it. */
  balanceAfterMicro: bigint;
}

/** Who pays for a call and who made it. */
export interface Payer extends CallParties {
  orgId: string;
  /** The spend caps the hold counts against (validator completions: the miner's day, the validator's, the lease). */
  cap?: SpendCaps | undefined;
  /** The request's early hold (`holdEarly`), taken over when it holds the call's amount. */
  early?: EarlyHold | undefined;
}

/** A call as the catalog prices it: its model, the adapter's request and its hold. */
interface PricedCall {
  resolved: ResolvedModel;
  request: CompletionRequest;
  hold: CompletionHold;
}

/** Runs every billed completion of this instance. */
export class CompletionDesk {
  readonly #deps: CompletionDeskDeps;

  constructor(deps: CompletionDeskDeps) {
    this.#deps = deps;
  }

  /**
   * Starts the early hold of a request for the key's org: `apiKeyAuth`'s alongside hook on the
   * customer route, for a key this instance already verified. Null for a body too large to check
   * twice. A property, so that it is handed to the middleware as it is.
   */
  readonly holdEarly = (key: { orgId: string }, call: EarlyCall): EarlyHold | null => {
    if (call.body.bytes > EARLY_MAX_BYTES) return null;
    const hold = new OrgHold({ orgId: key.orgId, requestId: call.requestId }, this.#deps);
    return new EarlyHold(hold, this.#earlyAmount(call.body));
  };

  /**
   * Runs one billed call for `payer`: 400 naming `provider`, `model` or `maxTokens` for a call the
   * catalog does not serve, 402 when the hold does not fit (the provider is never called), the
   * provider's failures as docs/gateway.md maps them (each with the hold released), else the
   * charged completion with the org's available balance right after the settle. An aborted
   * `signal` (shutdown) ends the provider call: 503, the hold released.
   */
  async complete(
    call: CompletionCall,
    payer: Payer,
    options: { signal?: AbortSignal } = {},
  ): Promise<BilledCompletion> {
    const priced = this.#price(call);
    const provider = priced.resolved.provider.id;
    const adapter = this.#deps.adapters.get(provider);
    const hold = await this.#reserve(priced.hold.costMicro, payer);
    const { result, latencyMs } = await this.#callProvider(adapter, priced, { hold, ...options });
    const charge = completionCharge(result, { ...priced, latencyMs });
    this.#noteCharge(charge, { provider, requestId: payer.requestId });
    const { orgId: _orgId, cap: _cap, early: _early, ...parties } = payer;
    const usage = completionUsage({ provider, model: call.model, charge }, parties);
    const balanceAfterMicro = await hold.settle(charge.costMicro, usage);
    return { ...charge, provider, model: call.model, output: result.output, balanceAfterMicro };
  }

  /** The call priced; 400 for a provider, model or `maxTokens` the catalog does not serve. */
  #price(call: CompletionCall): PricedCall {
    const resolved = this.#deps.catalog.resolve(call.provider, call.model);
    const request = adapterRequest(call);
    if (request.maxTokens > resolved.maxOutputTokens) {
      throw new ServiceError("invalid_request", "Invalid maxTokens", {
        details: { fields: [{ field: "maxTokens", problem: `must be at most ${resolved.maxOutputTokens}` }] },
      });
    }
    return { resolved, request, hold: completionHold(resolved, request) };
  }

  /** The hold of an early body; null when it is not a valid call of a served model (the route answers it). */
  async #earlyAmount(body: EarlyBody): Promise<bigint | null> {
    try {
      const call = await body.read();
      return call && this.#price(call).hold.costMicro;
    } catch {
      return null;
    }
  }

  /**
   * The call's hold, made: its early hold taken over, or its own. Otherwise the org's refusal;
   * or, when the reserve's outcome is unknown, its failure, once the hold that may exist is released.
   */
  async #reserve(amountMicro: bigint, payer: Payer): Promise<OrgHold> {
    const taken = await payer.early?.take(amountMicro);
    const hold = taken?.hold ?? new OrgHold(payer, this.#deps);
    let outcome = taken?.reserve;
    if (outcome?.kind !== "held" && outcome?.kind !== "refused") {
      outcome = await hold.reserve(amountMicro, { cap: payer.cap });
    }
    if (outcome.kind === "held") return hold;
    if (outcome.kind === "refused") throw outcome.refusal;
    await hold.release("cannot release hold after the reserve's outcome is unknown");
    throw outcome.error;
  }

  /** The provider's completion and how long it took; its failure answered, with the hold released. */
  async #callProvider(
    adapter: ProviderAdapter,
    priced: PricedCall,
    at: { hold: OrgHold; signal?: AbortSignal },
  ): Promise<{ result: CompletionResult; latencyMs: number }> {
    const { clock, log } = this.#deps;
    const started = clock();
    try {
      const result = await adapter.complete(priced.request, at.signal ? { signal: at.signal } : {});
      return { result, latencyMs: clock() - started };
    } catch (error) {
      const provider = priced.resolved.provider.id;
      const answer = failedCallAnswer(error, {
        provider,
        requestId: at.hold.requestId,
        log,
        signal: at.signal,
      });
      await at.hold.release("cannot release hold after the provider call failed");
      throw answer;
    }
  }

  /** Counts the charge's basis, and logs a call charged its hold. */
  #noteCharge(charge: CompletionCharge, at: { provider: string; requestId: string }): void {
    this.#deps.onCharge?.(at.provider, charge.basis);
    if (charge.basis === "usage") return;
    this.#deps.log({
      level: "warn",
      msg: charge.basis === "hold_no_usage"
        ? "provider reported no usage: charged the hold"
        : "usage above the hold: charged the hold",
      ...at,
      holdMicro: charge.holdMicro.toString(),
    });
  }
}
