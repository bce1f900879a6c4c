import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { ErrorCode } from "../../actors/kernel/mod.ts";
import { STATUS_OF } from "../middleware/error_handler.ts";
import { REQUEST_ID } from "../middleware/request_id.ts";

/** What each error code means, as the OpenAPI document tells it (docs/conventions.md has the table). */
export const ERROR_MEANING: Record<ErrorCode, string> = {
  invalid_request: "a parameter or the body is invalid; `details.fields` names each bad field",
  unauthenticated: "credentials are missing or not accepted",
  invalid_signature: "the request signature does not verify",
  timestamp_out_of_window: "the signed timestamp is too far from the server's clock",
  nonce_reused: "the signed nonce was used before",
  insufficient_credits: "the organisation's available balance cannot cover the call",
  spend_cap_reached: "the miner's daily cap on validator completions (UTC day) is spent",
  insufficient_scope: "the API key lacks the scope the route needs (`details.requiredScope`)",
  hotkey_not_in_metagraph:
    "the signing hotkey is not in the metagraph (on the validator gateway route: or the miner hotkey of `x-miner-hotkey`, named in `details.minerHotkey`)",
  validator_permit_required:
    "the signing hotkey has no validator permit, or its stake is below `FGW_VALIDATOR_MIN_STAKE_RAO`",
  miner_not_registered: "the miner hotkey is not registered to an organisation",
  wrong_auth_scheme: "a request signature was sent to an API-key route, or the reverse, or both at once",
  insufficient_role:
    "the dashboard member's role does not allow the action (a viewer asking an owner's action)",
  csrf_refused: "a dashboard request that changes state came without its CSRF token or a same-origin " +
    "`Origin` (`details.reason`)",
  not_found: "no such resource (an id that cannot name one is not found either)",
  pool_empty: "no live event is in the assignment pool",
  conflict: "a uniqueness rule refused the write, or concurrent changes kept refusing it " +
    "(then with `Retry-After`: try again)",
  lease_not_held: "the caller does not hold the lease",
  dashboard_off: "the dashboard is off: the operator has not set `FGW_PUBLIC_URL` (docs/dashboard.md)",
  payload_too_large: "the body is over its limit (`details.maxBytes`)",
  unsupported_media_type: "the body is not sent as `Content-Type: application/json`",
  rate_limited: "a rate limit (per API key, per client address, per validator hotkey, a validator's " +
    "live-lease cap, or a miner's agent upload cooldown) is spent; wait `Retry-After` seconds",
  upstream_error: "the upstream provider failed; the call is not charged",
  upstream_timeout: "the upstream provider did not answer in time; the call is not charged",
  metagraph_unavailable:
    "the metagraph was never synced, or its last sync is older than 3 sync intervals: signature routes fail closed",
  not_ready: "the service is not ready (`details.checks` names the failing checks)",
  unavailable:
    "the service is overloaded (a full actor mailbox, or no answer in time), or the LLM provider " +
    "rate-limited the gateway; wait `Retry-After` seconds",
  internal_error: "a bug, logged with the request id; details never leak",
};

/** Every error code, for the `ErrorBody` schema. */
const ERROR_CODES = Object.keys(STATUS_OF) as [ErrorCode, ...ErrorCode[]];

/** The error body of docs/conventions.md, shared by every non-2xx response. */
export const ErrorBody = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES).meta({ description: "Stable snake_case code; see docs/conventions.md." }),
    message: z.string().meta({ description: "A sentence for people; do not parse it." }),
    details: z.record(z.string(), z.unknown()).optional().meta({
      description: "Facts about the error, e.g. `fields: [{field, problem}]` for `invalid_request`.",
    }),
  }),
  requestId: z.string().meta({ description: "The `X-Request-Id` of the response." }),
}).meta({ id: "ErrorBody", description: "The body of every non-2xx response (docs/conventions.md)." });

/** Names of the response header components. */
export const HEADER = {
  requestId: "X-Request-Id",
  rateLimitLimit: "X-RateLimit-Limit",
  rateLimitRemaining: "X-RateLimit-Remaining",
  retryAfter: "Retry-After",
  wwwAuthenticate: "WWW-Authenticate",
  nextCursor: "X-Next-Cursor",
} as const;

type HeaderName = typeof HEADER[keyof typeof HEADER];

const HEADERS: Record<HeaderName, { description: string; schema: Record<string, unknown> }> = {
  "X-Request-Id": {
    description: "The request's id: a well-formed incoming `X-Request-Id` (8–128 of `[A-Za-z0-9._-]`) " +
      "is kept, otherwise one is made. Quote it when reporting a problem.",
    schema: { type: "string", pattern: REQUEST_ID.source },
  },
  "X-RateLimit-Limit": {
    description: "Requests per minute the API key may make (sent once the key is authenticated).",
    schema: { type: "integer", minimum: 1 },
  },
  "X-RateLimit-Remaining": {
    description: "Requests the API key has left in the current one-minute window.",
    schema: { type: "integer", minimum: 0 },
  },
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    schema: { type: "integer", minimum: 1 },
  },
  "WWW-Authenticate": {
    description: "The scheme the route expects: `Bearer`.",
    schema: { type: "string" },
  },
  "X-Next-Cursor": {
    description: "The cursor of the next page of a CSV answer; empty on the last page.",
    schema: { type: "string" },
  },
};

/** A reference to a shared response header. */
export function headerRef(name: HeaderName): { $ref: string } {
  return { $ref: `#/components/headers/${name}` };
}

/** Security scheme names used by route declarations. */
export const SECURITY = {
  apiKey: "apiKey",
  admin: "adminToken",
  miner: "minerSignature",
  validator: "validatorSignature",
} as const;

const SIGNATURE_SCHEME_TEXT = "An sr25519 request signature (docs/signatures.md) over the canonical " +
  "message of the domain";

/** Registers the shared headers and security schemes on the app's registry (once, on the root app). */
export function registerSharedComponents(registry: OpenAPIHono["openAPIRegistry"]): void {
  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent("headers", name, header);
  registry.registerComponent("securitySchemes", SECURITY.apiKey, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "fgw_<keyId>_<secret>",
    description: "An organisation's API key, issued by the admin API: `Authorization: Bearer fgw_…`. " +
      "The security requirement lists the scope the route needs.",
  });
  registry.registerComponent("securitySchemes", SECURITY.admin, {
    type: "http",
    scheme: "bearer",
    description: "The operator's admin token (`FGW_ADMIN_TOKEN`): `Authorization: Bearer <token>`. " +
      "Without a configured token the admin API answers 404 to everything.",
  });
  registry.registerComponent("securitySchemes", SECURITY.miner, {
    type: "apiKey",
    in: "header",
    name: "x-miner-signature",
    description: `${SIGNATURE_SCHEME_TEXT} \`forecasting-gateway/miner/v1\`, sent with \`x-miner-hotkey\`, ` +
      "`x-miner-nonce` and `x-miner-timestamp`; the signer must be registered to an organisation.",
  });
  registry.registerComponent("securitySchemes", SECURITY.validator, {
    type: "apiKey",
    in: "header",
    name: "x-validator-signature",
    description: `${SIGNATURE_SCHEME_TEXT} \`forecasting-gateway/validator/v1\`, sent with ` +
      "`x-validator-hotkey`, `x-validator-nonce` and `x-validator-timestamp`.",
  });
}
