import { z } from "zod";
import { isSs58Address } from "../../actors/kernel/mod.ts";
import type { Alongside, ApiKeyAccess } from "../middleware/api_key_auth.ts";
import type { SignatureAccess } from "../middleware/signature_auth.ts";
import { defineRoute, jsonBody, jsonResponse } from "../http/openapi.ts";
import { CONTROL_CHARACTER } from "../http/validation.ts";
import { microString, ValidatorSignatureHeaders } from "../http/shared_schemas.ts";

/** The response header carrying the available balance after a completion's settle. */
export const CREDITS_REMAINING = "X-Service-Credits-Remaining";

/** The largest `maxTokens` any catalog model may allow (the catalog file's own bound). */
const MAX_TOKENS_BOUND = 1_000_000;

const message = z.strictObject({
  role: z.enum(["system", "user", "assistant"]),
  content: z.string().meta({ description: "The turn's text (string content only)." }),
});

const stopSequence = z.string().min(1).max(256);

/**
 * The fields of a completion request both gateway routes take (docs/gateway.md, "Routes"):
 * strict, so any other field (`stream`, `n`, `tools`, …) is a 400 naming it.
 */
const requestFields = {
  provider: z.string().min(1).max(64).meta({
    description: "A provider id from `GET /v1/gateway/providers`.",
  }),
  // Kept in the usage record: text PostgreSQL can store, readable in a log line.
  model: z.string().min(1).max(200).refine(
    (value) => value.isWellFormed() && !CONTROL_CHARACTER.test(value),
    "must not contain control characters or lone surrogates",
  ).meta({
    description: "One of the provider's models (any model when it `allowsAnyModel`).",
  }),
  messages: z.array(message).min(1).max(10_000).meta({ description: "The conversation, oldest first." }),
  // The bounds first, each ending the checks when it fails: 1e300 is one problem ("at most"), not
  // also "not a safe integer".
  maxTokens: z.number().min(1, { abort: true }).max(MAX_TOKENS_BOUND, {
    abort: true,
    message: `must be at most ${MAX_TOKENS_BOUND}, and at most the model's maxOutputTokens ` +
      "(32768 unless the provider catalog sets it)",
  }).int().meta({
    description: "Most completion tokens; at most the model's `maxOutputTokens` (default 32768). " +
      "Every one of them is held before the call (docs/gateway.md).",
  }),
  temperature: z.number().min(0).max(2).optional().meta({ description: "Passed on to the provider." }),
  topP: z.number().min(0).max(1).optional().meta({ description: "Passed on as the provider's `top_p`." }),
  stop: z.union([stopSequence, z.array(stopSequence).min(1).max(16)]).optional().meta({
    description: "Stop sequence(s), passed on to the provider.",
  }),
};

/** `POST /v1/gateway/completions`'s body: the shared fields and the optional miner attribution. */
export const completionRequestSchema = z.strictObject({
  ...requestFields,
  minerHotkey: z.string().refine(isSs58Address, "must be an SS58 address (checksum included)").optional()
    .meta({
      description: "Attribute the call to this miner (registered to the key's organisation); default " +
        "the key's pinned miner, then the organisation's default miner.",
    }),
}).meta({ id: "CompletionRequest" });

/**
 * The validator route's body: the same fields without `minerHotkey` (the header names the miner),
 * and the lease whose agent run makes the call.
 */
export const validatorCompletionRequestSchema = z.strictObject({
  ...requestFields,
  agentPredictionId: z.string().min(1).max(128).meta({
    description: "The lease whose agent run makes the call (`GET /v1/validators/agent-and-event`): held by " +
      "the signing validator, for the miner in `x-miner-hotkey`, not yet submitted, live or within " +
      "`FGW_LEASE_GRACE_MS` of its expiry; else 409 `lease_not_held`.",
  }),
}).meta({ id: "ValidatorCompletionRequest" });

/**
 * The body a miner's agent sends to its validator's relay (docs/agents.md, "LLM calls"): the shared
 * fields, strict, naming neither a miner nor a lease (the relay adds the run's own).
 */
export const agentCompletionRequestSchema = z.strictObject(requestFields);

export const CompletionResponseSchema = z.object({
  provider: z.string(),
  model: z.string(),
  output: z.string(),
  usage: z.object({
    promptTokens: z.number().int(),
    completionTokens: z.number().int(),
    totalTokens: z.number().int(),
  }).meta({ description: "The provider's usage; the hold's bound when it reported none." }),
  costMicro: microString("What the call was charged (never more than its hold)."),
  providerCostMicro: microString("The provider's price of the usage, before markup."),
  markupBps: z.number().int().meta({ description: "Markup in basis points." }),
  balanceAfterMicro: microString(
    "The available balance right after the charge (other calls' holds deducted), as `GET /v1/credits/balance` " +
      "answers it.",
  ),
}).meta({ id: "CompletionResponse", description: "The flat completion envelope." });

export const ProviderListingSchema = z.object({
  providers: z.array(z.object({
    id: z.string(),
    models: z.array(z.string()),
    allowsAnyModel: z.boolean(),
  })),
}).meta({ id: "ProviderCatalog" });

/** `GET /v1/gateway/providers`: public, cacheable. */
export const listProvidersRoute = defineRoute({
  method: "get",
  path: "/providers",
  tags: ["gateway"],
  summary: "The LLM providers and models the gateway serves",
  description: "Fixed while the service runs (the catalog is read at start): cacheable for a minute, " +
    "with an `ETag` (`If-None-Match` answers 304).",
  access: "public",
  responses: {
    200: {
      ...jsonResponse(ProviderListingSchema, "The provider catalog, in the catalog file's order."),
      headers: {
        "Cache-Control": { description: "`public, max-age=60`", schema: { type: "string" } },
        ETag: { description: "The listing's version.", schema: { type: "string" } },
      },
    },
    304: { description: "The listing named by `If-None-Match` is current." },
  },
});

/** `POST /v1/gateway/completions` with an API key holding `gateway:write`. */
export function completionRoute(
  options: { keys: ApiKeyAccess; maxBodyBytes: number; alongside?: Alongside },
) {
  return defineRoute({
    method: "post",
    path: "/completions",
    tags: ["gateway"],
    summary: "A billed LLM completion",
    description: "Holds the call's worst-case cost (402 `insufficient_credits` without calling the " +
      "provider when it does not fit), calls the provider, charges the actual cost from its usage " +
      "(never more than the hold) and writes a usage record; a failed call is not charged. docs/gateway.md.",
    access: {
      apiKey: "gateway:write",
      keys: options.keys,
      ...(options.alongside ? { alongside: options.alongside } : {}),
    },
    errors: [
      "invalid_request",
      "insufficient_credits",
      "miner_not_registered",
      "upstream_error",
      "upstream_timeout",
      "unavailable",
    ],
    maxBodyBytes: options.maxBodyBytes,
    request: { body: jsonBody(completionRequestSchema) },
    responses: {
      200: {
        ...jsonResponse(CompletionResponseSchema, "The completion and its charge."),
        headers: {
          [CREDITS_REMAINING]: {
            description: "The same figure as `balanceAfterMicro`.",
            schema: { type: "string" },
          },
        },
      },
    },
  });
}

/** The signature headers of the validator gateway route: a validator's, and the miner it acts for. */
const ValidatorCompletionHeaders = ValidatorSignatureHeaders.extend({
  "x-miner-hotkey": z.string().meta({
    description: "The miner whose agent makes the call: registered to an organisation (billed) and " +
      "holding a uid in the metagraph. Part of the signed message.",
  }),
});

/** `POST /v1/gateway/validator/completions`, signed by a validator for a miner's agent. */
export function validatorCompletionRoute(options: { signature: SignatureAccess; maxBodyBytes: number }) {
  return defineRoute({
    method: "post",
    path: "/completions",
    tags: ["gateway"],
    summary: "A billed LLM completion for a miner's agent, made by a validator",
    description: "The same request (without `minerHotkey`: the signed `x-miner-hotkey` names the miner; " +
      "with `agentPredictionId`, the lease the agent runs under) and envelope as `POST /v1/gateway/completions`, " +
      "billed to the miner's organisation within three spend caps, counted in the hold's own write: the " +
      "miner's UTC day (`FGW_VALIDATOR_DAILY_CAP_MICRO`), this validator's UTC day on the miner " +
      "(`FGW_VALIDATOR_MINER_DAILY_CAP_MICRO`) and the lease (`FGW_LEASE_LLM_CAP_MICRO`); beyond one, 402 " +
      "`spend_cap_reached` with `details.cap` `daily`, `validator` or `lease`. A lease the signer does not " +
      "hold for this miner is 409 `lease_not_held`; nothing is charged. The usage record names the validator " +
      "and the lease. docs/gateway.md.",
    access: { signature: options.signature },
    errors: [
      "invalid_request",
      "insufficient_credits",
      "spend_cap_reached",
      "lease_not_held",
      "upstream_error",
      "upstream_timeout",
      "unavailable",
      "conflict",
    ],
    maxBodyBytes: options.maxBodyBytes,
    request: { headers: ValidatorCompletionHeaders, body: jsonBody(validatorCompletionRequestSchema) },
    responses: {
      200: {
        ...jsonResponse(
          CompletionResponseSchema,
          "The completion and its charge to the miner's organisation.",
        ),
        headers: {
          [CREDITS_REMAINING]: {
            description: "The same figure as `balanceAfterMicro` (the miner's organisation).",
            schema: { type: "string" },
          },
        },
      },
    },
  });
}
