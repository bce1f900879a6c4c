/**
 * How the relay reaches the gateway for an agent (docs/agents.md, "LLM calls"): a completion goes
 * to `POST /v1/gateway/validator/completions` with the run's lease added to the body and its miner
 * in `x-miner-hotkey`, signed as the validator; the provider listing comes from the public
 * `GET /v1/gateway/providers`. Answers are passed on as they came; a gateway that cannot be reached
 * or does not answer in time is the relay's own refusal.
 */
import type { z } from "zod";
import type { agentCompletionRequestSchema } from "../../../routes/gateway/gateway_api.ts";
import { gatewayUrl, signedFetch, type SigningDeps } from "../signed_fetch.ts";
import { refusalAnswer, type RelayAnswer, unavailable } from "./refusal.ts";

export const VALIDATOR_COMPLETIONS_PATH = "/v1/gateway/validator/completions";
const PROVIDERS_PATH = "/v1/gateway/providers";

/** The body an agent may send (the strict schema the service shares). */
export type AgentCompletionBody = z.infer<typeof agentCompletionRequestSchema>;

/** The run a relay serves: its lease and that lease's miner. */
export interface RelayLease {
  agentPredictionId: string;
  minerHotkey: string;
}

/** One forwarded request: its id (sent as `x-request-id`), the relay's abort, the time allowed. */
export interface ForwardAt {
  requestId: string;
  /** Aborted when the relay closes: the call is abandoned. */
  signal: AbortSignal;
  timeoutMs: number;
}

/** Headers of the gateway's answer passed on to the agent. */
const PASSED_HEADERS = ["content-type", "retry-after", "x-request-id", "x-service-credits-remaining"];

/** Forwards an agent's completion for `lease` (see the module comment). */
export function forwardCompletion(
  deps: SigningDeps,
  call: { lease: RelayLease; body: AgentCompletionBody },
  at: ForwardAt,
): Promise<RelayAnswer> {
  const body = JSON.stringify({ ...call.body, agentPredictionId: call.lease.agentPredictionId });
  return passedOn((signal) =>
    signedFetch(deps, {
      method: "POST",
      path: VALIDATOR_COMPLETIONS_PATH,
      body,
      minerHotkey: call.lease.minerHotkey,
      headers: { "x-request-id": at.requestId },
      signal,
    }), at);
}

/** Asks the gateway's public provider listing. */
export function forwardProviders(deps: SigningDeps, at: ForwardAt): Promise<RelayAnswer> {
  return passedOn((signal) =>
    deps.fetch(gatewayUrl(deps.base, PROVIDERS_PATH), {
      method: "GET",
      headers: { "x-request-id": at.requestId },
      signal,
    }), at);
}

async function passedOn(
  send: (signal: AbortSignal) => Promise<Response>,
  at: ForwardAt,
): Promise<RelayAnswer> {
  const timeout = AbortSignal.timeout(at.timeoutMs);
  const signal = AbortSignal.any([at.signal, timeout]);
  try {
    const response = await abortable(send(signal), signal);
    const text = await abortable(response.text(), signal);
    const headers: Record<string, string> = {};
    for (const name of PASSED_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    return { status: response.status, headers, text };
  } catch (error) {
    if (at.signal.aborted) {
      return refusalAnswer(unavailable("The run has ended: the call was abandoned"), at.requestId);
    }
    if (timeout.aborted) {
      const message = `The gateway did not answer within ${at.timeoutMs} ms`;
      return refusalAnswer({ status: 504, code: "upstream_timeout", message }, at.requestId);
    }
    const reason = error instanceof Error ? error.message : String(error);
    return refusalAnswer(unavailable(`The gateway cannot be reached: ${reason}`), at.requestId);
  }
}

/** `promise`, or a rejection as soon as `signal` aborts (a fetch that ignores its signal included). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  let stop = () => {};
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener("abort", stop));
}
