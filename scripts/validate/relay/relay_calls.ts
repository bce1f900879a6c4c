/**
 * The calls of one run's relay (docs/agents.md, "LLM calls"): at most `maxCalls` completions per
 * run (beyond: 429 `relay_limit`, never forwarded), at most `maxInFlight` at the gateway at once
 * (the next ones wait their turn), the provider listing asked once and kept for the run, and the
 * tally the validator reports: calls made, calls charged, what they cost.
 */
import { CompletionResponseSchema } from "../../../routes/gateway/gateway_api.ts";
import type { SigningDeps } from "../signed_fetch.ts";
import { waitAtMost } from "../wait_at_most.ts";
import { CallSlots } from "./call_slots.ts";
import { refusalAnswer, type RelayAnswer, relayLimit, unavailable } from "./refusal.ts";
import {
  type AgentCompletionBody,
  forwardCompletion,
  forwardProviders,
  type RelayLease,
} from "./relay_forward.ts";

/** What a run's relay did. */
export interface RelayStats {
  /** Completions forwarded to the gateway (within the limit). */
  calls: number;
  /** Completions the gateway answered 200: charged to the miner's organisation. */
  charged: number;
  /** Σ `costMicro` of the charged completions' envelopes. */
  costMicro: bigint;
  /** Completions refused 429 `relay_limit`. */
  refused: number;
}

export interface CallLimits {
  maxCalls: number;
  maxInFlight: number;
  /** Longest wait for the gateway's answer to one call. */
  upstreamTimeoutMs: number;
}

export class RelayCalls {
  readonly #deps: SigningDeps;
  readonly #lease: RelayLease;
  readonly #limits: CallLimits;
  readonly #slots: CallSlots;
  readonly #abandon = new AbortController();
  readonly #pending = new Set<Promise<unknown>>();
  #providers: Promise<RelayAnswer> | null = null;
  #ended = false;
  #stats: RelayStats = { calls: 0, charged: 0, costMicro: 0n, refused: 0 };

  constructor(deps: SigningDeps, lease: RelayLease, limits: CallLimits) {
    this.#deps = deps;
    this.#lease = lease;
    this.#limits = limits;
    this.#slots = new CallSlots(limits.maxInFlight);
  }

  stats(): RelayStats {
    return { ...this.#stats };
  }

  /** Forwards one completion, or refuses it (the run ended, or its calls are spent). */
  complete(body: AgentCompletionBody, requestId: string): Promise<RelayAnswer> {
    if (this.#ended) return Promise.resolve(refusalAnswer(unavailable("The run has ended"), requestId));
    if (this.#stats.calls >= this.#limits.maxCalls) {
      this.#stats.refused++;
      return Promise.resolve(refusalAnswer(relayLimit(this.#limits.maxCalls), requestId));
    }
    this.#stats.calls++;
    return this.#tracked(this.#forward(body, requestId));
  }

  /** The gateway's provider listing: asked once per run, kept once it answered 200. */
  providers(requestId: string): Promise<RelayAnswer> {
    if (this.#ended) return Promise.resolve(refusalAnswer(unavailable("The run has ended"), requestId));
    if (this.#providers) return this.#providers;
    const asked = this.#tracked(forwardProviders(this.#deps, this.#at(requestId)));
    this.#providers = asked;
    asked.then((answer) => {
      if (answer.status !== 200 && this.#providers === asked) this.#providers = null;
    });
    return asked;
  }

  /**
   * Ends the run's calls: new ones are refused; those in progress may finish for `graceMs`, then
   * are abandoned (their agents answered 503). Resolves once none is left.
   */
  async end(graceMs: number): Promise<RelayStats> {
    this.#ended = true;
    await waitAtMost(Promise.allSettled([...this.#pending]), graceMs);
    this.#abandon.abort(new Error("The run has ended"));
    await Promise.allSettled([...this.#pending]);
    return this.stats();
  }

  async #forward(body: AgentCompletionBody, requestId: string): Promise<RelayAnswer> {
    let giveBack: () => void;
    try {
      giveBack = await this.#slots.take(this.#abandon.signal);
    } catch {
      return refusalAnswer(unavailable("The run has ended"), requestId);
    }
    try {
      const answer = await forwardCompletion(this.#deps, { lease: this.#lease, body }, this.#at(requestId));
      this.#count(answer);
      return answer;
    } finally {
      giveBack();
    }
  }

  /** Counts a charged call and its cost (an envelope that does not parse counts as charged, cost unknown). */
  #count(answer: RelayAnswer): void {
    if (answer.status !== 200) return;
    this.#stats.charged++;
    try {
      const envelope = CompletionResponseSchema.safeParse(JSON.parse(answer.text));
      if (envelope.success) this.#stats.costMicro += BigInt(envelope.data.costMicro);
    } catch {
      // Not JSON: charged at a cost the relay cannot read.
    }
  }

  #at(requestId: string) {
    return { requestId, signal: this.#abandon.signal, timeoutMs: this.#limits.upstreamTimeoutMs };
  }

  #tracked<T>(promise: Promise<T>): Promise<T> {
    this.#pending.add(promise);
    promise.finally(() => this.#pending.delete(promise)).catch(() => {});
    return promise;
  }
}
