/**
 * A local fake of the gateway's validator completions route, speaking its wire format
 * (docs/gateway.md, docs/agents.md "LLM calls"): `POST /v1/gateway/validator/completions` signed in
 * the validator role with `x-miner-hotkey` (checked with the service's verifier), the agent's body
 * plus `agentPredictionId` (checked strictly), answered with the flat completion envelope, echo
 * style, or the error body (a provider or model not in its catalog refused as the service's
 * catalog refuses it); and the public `GET /v1/gateway/providers`. It records what it was
 * sent, counts calls in flight, and can hold its answers until told to let them go.
 */
import { z } from "zod";
import { ServiceError } from "../../actors/kernel/mod.ts";
import {
  requestTarget,
  scureSr25519Verify,
  type Sr25519Verify,
  verifySignedRequest,
} from "../../actors/validators/mod.ts";
import { agentCompletionRequestSchema } from "../../routes/gateway/gateway_api.ts";
import { STATUS_OF } from "../../routes/middleware/error_handler.ts";

/** The forwarded body: the agent's fields and the lease. */
const ForwardedBody = agentCompletionRequestSchema.extend({ agentPredictionId: z.string().min(1) });

/** One call the fake accepted. */
export interface ReceivedCall {
  validatorHotkey: string;
  minerHotkey: string | null;
  requestId: string | null;
  /** The body as sent (strictly checked: no field but the agent's and the lease). */
  body: z.infer<typeof ForwardedBody>;
}

export interface FakeValidatorGateway {
  base: string;
  received: ReceivedCall[];
  /** Requests refused (bad signature or body), with the error code. */
  refusedCodes: string[];
  providerRequests: number;
  inFlight: number;
  maxInFlight: number;
  /** Holds every answer until `release` (calls still arrive and count in flight). */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export interface FakeGatewayOptions {
  /** `costMicro` of every envelope (default "7"). */
  costMicro?: string;
  /** The signature check (default `@scure/sr25519`'s). */
  verify?: Sr25519Verify;
}

const PROVIDERS = { providers: [{ id: "echo", models: ["echo-1"], allowsAnyModel: false }] };

/** Starts the fake on 127.0.0.1 (a free port). */
export function startFakeValidatorGateway(options: FakeGatewayOptions = {}): FakeValidatorGateway {
  let gate: { promise: Promise<void>; resolve: () => void } | null = null;
  const fake: FakeValidatorGateway = {
    base: "",
    received: [],
    refusedCodes: [],
    providerRequests: 0,
    inFlight: 0,
    maxInFlight: 0,
    hold: () => gate ??= Promise.withResolvers<void>(),
    release: () => {
      gate?.resolve();
      gate = null;
    },
    close: () => server.shutdown(),
  };
  const answer = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/v1/gateway/providers") {
      fake.providerRequests++;
      return Response.json(PROVIDERS);
    }
    if (request.method !== "POST" || path !== "/v1/gateway/validator/completions") {
      return errorBody(new ServiceError("not_found", "Not found"));
    }
    fake.inFlight++;
    fake.maxInFlight = Math.max(fake.maxInFlight, fake.inFlight);
    try {
      const body = new Uint8Array(await request.arrayBuffer());
      const call = checked(request, body, options.verify ?? scureSr25519Verify);
      fake.received.push(call);
      servedModel(call.body);
      await gate?.promise;
      return Response.json(envelope(call.body, options.costMicro ?? "7"));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      fake.refusedCodes.push(error.code);
      return errorBody(error);
    } finally {
      fake.inFlight--;
    }
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, answer);
  fake.base = `http://127.0.0.1:${server.addr.port}`;
  return fake;
}

function checked(request: Request, body: Uint8Array, verify: Sr25519Verify): ReceivedCall {
  const verified = verifySignedRequest({
    method: request.method,
    target: requestTarget(request.url),
    body,
    headers: request.headers,
  }, { role: "validator", verify, nowMs: Date.now(), windowMs: 30_000 });
  const parsed = ForwardedBody.safeParse(JSON.parse(new TextDecoder().decode(body)));
  if (!parsed.success) {
    throw new ServiceError("invalid_request", "Invalid body", { details: { issues: parsed.error.issues } });
  }
  return {
    validatorHotkey: verified.hotkey,
    minerHotkey: verified.minerHotkey,
    requestId: request.headers.get("x-request-id"),
    body: parsed.data,
  };
}

/** Throws the service's refusal of a provider or model its catalog does not have (400 naming the field). */
function servedModel(body: z.infer<typeof ForwardedBody>): void {
  const provider = PROVIDERS.providers.find((entry) => entry.id === body.provider);
  const unknown = (field: string, problem: string) =>
    new ServiceError("invalid_request", `Unknown ${field}`, { details: { fields: [{ field, problem }] } });
  if (!provider) throw unknown("provider", `No provider "${body.provider}" in the catalog`);
  if (!provider.models.includes(body.model)) {
    throw unknown("model", `Provider "${body.provider}" offers no model "${body.model}"`);
  }
}

/** The echo provider's envelope: the last user message, a fixed cost. */
function envelope(body: z.infer<typeof ForwardedBody>, costMicro: string) {
  const output = body.messages.findLast((message) => message.role === "user")?.content ?? "";
  const promptTokens = 8;
  const completionTokens = Math.ceil(new TextEncoder().encode(output).length / 4);
  return {
    provider: body.provider,
    model: body.model,
    output,
    usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
    costMicro,
    providerCostMicro: costMicro,
    markupBps: 0,
    balanceAfterMicro: "1000000",
  };
}

function errorBody(error: ServiceError): Response {
  const details = error.details ? { details: error.details } : {};
  const body = { error: { code: error.code, message: error.message, ...details }, requestId: "fake" };
  return Response.json(body, { status: STATUS_OF[error.code] });
}
