import { z } from "zod";
import { isSs58Address } from "../../actors/kernel/mod.ts";
import { isKeyId } from "../../actors/keys/mod.ts";
import { ASKS_ACTOR, defineRoute, jsonBody, jsonResponse, pathId } from "../http/openapi.ts";
import { freeText } from "../http/validation.ts";
import { orgIdParam } from "../http/path_ids.ts";
import { apiKeyScope, ApiKeySummarySchema } from "../http/shared_schemas.ts";

/** Most requests per minute a key may be given. */
export const MAX_KEY_RPM = 1_000_000;

/** The terms of a new key. */
export const issueSchema = z.strictObject({
  name: freeText({ max: 100 }),
  scopes: z.array(apiKeyScope).min(1),
  rateLimitRpm: z.number().int().min(1).max(MAX_KEY_RPM).meta({ description: "Requests per minute." }),
  pinnedMinerHotkey: z.string().refine(isSs58Address, "must be an SS58 address").optional()
    .meta({ description: "Calls made with the key are attributed to this miner of the org." }),
  expiresAt: z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString()).optional()
    .meta({ description: "When the key stops working (a future ISO 8601 instant)." }),
});

const keyPath = z.object({
  keyId: pathId(isKeyId, "No such API key", { description: "The key's id (24 lowercase hex)." }),
});

const IssuedKey = z.object({
  apiKey: z.string().meta({
    description: "The full key `fgw_<keyId>_<secret>`: shown in this response only.",
  }),
  key: ApiKeySummarySchema,
}).meta({ id: "IssuedApiKey" });

const orgPath = z.object({ orgId: orgIdParam });
const KeyOnly = z.object({ key: ApiKeySummarySchema });
const TAGS = ["admin: API keys"];

export const issueKeyRoute = defineRoute({
  method: "post",
  path: "/orgs/{orgId}/keys",
  tags: TAGS,
  summary: "Issue an API key",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { params: orgPath, body: jsonBody(issueSchema) },
  responses: { 201: jsonResponse(IssuedKey, "Issued; `apiKey` is never shown again.") },
});

export const listKeysRoute = defineRoute({
  method: "get",
  path: "/orgs/{orgId}/keys",
  tags: TAGS,
  summary: "List an organisation's API keys, oldest first",
  access: "admin",
  request: { params: orgPath },
  responses: { 200: jsonResponse(z.object({ items: z.array(ApiKeySummarySchema) }), "The keys.") },
});

export const getKeyRoute = defineRoute({
  method: "get",
  path: "/keys/{keyId}",
  tags: TAGS,
  summary: "Show an API key",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { params: keyPath },
  responses: { 200: jsonResponse(KeyOnly, "The key.") },
});

export const rotateKeyRoute = defineRoute({
  method: "post",
  path: "/keys/{keyId}/rotate",
  tags: TAGS,
  summary: "Rotate an API key: a new secret, the old one fails at once",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { params: keyPath },
  responses: { 200: jsonResponse(IssuedKey, "Rotated; `apiKey` is never shown again.") },
});

export const revokeKeyRoute = defineRoute({
  method: "post",
  path: "/keys/{keyId}/revoke",
  tags: TAGS,
  summary: "Revoke an API key (idempotent; it stays listed)",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { params: keyPath },
  responses: { 200: jsonResponse(KeyOnly, "Revoked.") },
});

export const deleteKeyRoute = defineRoute({
  method: "delete",
  path: "/keys/{keyId}",
  tags: TAGS,
  summary: "Delete an API key",
  access: "admin",
  errors: ASKS_ACTOR,
  request: { params: keyPath },
  responses: { 204: { description: "Deleted." } },
});
