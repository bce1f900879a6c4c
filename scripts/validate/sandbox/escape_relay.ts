/**
 * The escape checks of a run's LLM relay (docs/agents.md, "The escape suite"): what reached the
 * gateway's validator route for each check (each call's prompt names its check:
 * `fgw-escape-<marker> <check>/<variant>`), the harm found there, and, for the self-test, a stand-in
 * for that route in process (`gatewayStandIn`). The test suite notes the calls at the front of the
 * real service (tests/support/escape_group.ts).
 */
import { RELAY_LIMITS } from "../relay/mod.ts";

/** A miner and a lease an agent tries to name: neither is ever its run's own. */
export const OTHER_MINER = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
export const OTHER_LEASE = "ap_fgw-escape-other-lease";

/** One call that reached the validator completions route. */
export interface RelayCallSeen {
  check: string;
  variant: string;
  minerHotkey: string | null;
  agentPredictionId: string | null;
}

/** What reached the route, for the checks' verdicts. */
export interface RelaySeen {
  calls: RelayCallSeen[];
  /** Calls of each check at the route now, and the most at once. */
  inFlight: Map<string, number>;
  mostAtOnce: Map<string, number>;
}

export function freshRelaySeen(): RelaySeen {
  return { calls: [], inFlight: new Map(), mostAtOnce: new Map() };
}

/**
 * Notes a call to the validator completions route (its `x-miner-hotkey` and body) when its prompt
 * names a check of the world `marker`; returns what to call once it was answered.
 */
export function noteRelayCall(
  seen: RelaySeen,
  marker: string,
  call: { minerHotkey: string | null; body: string },
): () => void {
  const tagged = taggedCall(marker, call.body);
  if (tagged === null) return () => {};
  const { check } = tagged;
  seen.calls.push({ ...tagged, minerHotkey: call.minerHotkey });
  const now = (seen.inFlight.get(check) ?? 0) + 1;
  seen.inFlight.set(check, now);
  seen.mostAtOnce.set(check, Math.max(now, seen.mostAtOnce.get(check) ?? 0));
  return () => seen.inFlight.set(check, (seen.inFlight.get(check) ?? 1) - 1);
}

function taggedCall(marker: string, body: string): Omit<RelayCallSeen, "minerHotkey"> | null {
  let parsed: { messages?: { content?: unknown }[]; agentPredictionId?: unknown };
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const tag = new RegExp(`fgw-escape-${marker} ([a-z-]+)/(\\S+)`);
  for (const message of Array.isArray(parsed.messages) ? parsed.messages : []) {
    const found = typeof message?.content === "string" ? tag.exec(message.content) : null;
    if (found === null) continue;
    const lease = typeof parsed.agentPredictionId === "string" ? parsed.agentPredictionId : null;
    return { check: found[1]!, variant: found[2]!, agentPredictionId: lease };
  }
  return null;
}

/**
 * The harm of `check` at the route: calls forwarded that must not be, or beyond the limits; with
 * `reached`, also none at all (its refusal could not be the service's).
 */
export function relayHarm(seen: RelaySeen, check: string, options: { reached?: boolean } = {}): string[] {
  const calls = seen.calls.filter((call) => call.check === check);
  const harm: string[] = [];
  if (options.reached && calls.length === 0) harm.push("no call reached the gateway");
  const body = calls.filter((call) => call.variant === "body").length;
  if (body > 0) harm.push(`${body} calls naming another miner or lease in the body were forwarded`);
  if (calls.some((call) => call.minerHotkey === OTHER_MINER)) {
    harm.push("a call was forwarded for another miner");
  }
  if (calls.some((call) => call.agentPredictionId === OTHER_LEASE)) {
    harm.push("a call was forwarded for another lease");
  }
  if (calls.some((call) => call.agentPredictionId === null)) {
    harm.push("a call was forwarded without the run's lease");
  }
  if (calls.length > RELAY_LIMITS.maxCalls) {
    harm.push(`${calls.length} calls were forwarded, beyond the run's ${RELAY_LIMITS.maxCalls}`);
  }
  const most = seen.mostAtOnce.get(check) ?? 0;
  if (most > RELAY_LIMITS.maxInFlight) {
    harm.push(`${most} calls were at the gateway at once, beyond ${RELAY_LIMITS.maxInFlight}`);
  }
  return harm;
}

/** How long the stand-in holds each answer: long enough for calls made at once to meet there. */
const STAND_IN_ANSWER_MS = 20;

/**
 * The self-test's stand-in for the gateway (the relay's `fetch`): the validator completions route
 * answers the echo provider's envelope, and refuses any other provider or model as the service's
 * catalog does (400 `invalid_request` naming the field); the public provider listing. It notes
 * every completion in `seen`. Signatures are not checked: the relay signs as the service expects.
 */
export function gatewayStandIn(seen: RelaySeen, marker: string) {
  return async (url: string, init: RequestInit): Promise<Response> => {
    const { pathname } = new URL(url);
    if (init.method === "GET" && pathname.endsWith("/v1/gateway/providers")) {
      return Response.json({ providers: [{ id: "echo", models: ["echo-1"], allowsAnyModel: false }] });
    }
    if (init.method !== "POST" || !pathname.endsWith("/v1/gateway/validator/completions")) {
      return refusal(404, "not_found", "Not found");
    }
    const body = new TextDecoder().decode(init.body as Uint8Array);
    const minerHotkey = new Headers(init.headers).get("x-miner-hotkey");
    const done = noteRelayCall(seen, marker, { minerHotkey, body });
    try {
      await new Promise((resolve) => setTimeout(resolve, STAND_IN_ANSWER_MS));
      return answerTo(JSON.parse(body));
    } finally {
      done();
    }
  };
}

function answerTo(call: { provider: string; model: string; messages: { content: string }[] }): Response {
  if (call.provider !== "echo") {
    return refusal(400, "invalid_request", "Unknown provider", {
      fields: [{ field: "provider", problem: `No provider "${call.provider}" in the catalog` }],
    });
  }
  if (call.model !== "echo-1") {
    return refusal(400, "invalid_request", "Unknown model", {
      fields: [{ field: "model", problem: `Provider "echo" offers no model "${call.model}"` }],
    });
  }
  const output = call.messages.at(-1)?.content ?? "";
  return Response.json({
    provider: "echo",
    model: "echo-1",
    output,
    usage: { promptTokens: 8, completionTokens: 8, totalTokens: 16 },
    costMicro: "16",
    providerCostMicro: "16",
    markupBps: 0,
    balanceAfterMicro: "1000000",
  });
}

function refusal(status: number, code: string, message: string, details?: Record<string, unknown>): Response {
  const body = { error: { code, message, ...(details ? { details } : {}) }, requestId: "self-test" };
  return Response.json(body, { status });
}
