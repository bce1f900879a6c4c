import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { Clock } from "../../actors/kernel/mod.ts";
import type { ActorKind, ActorSystem, MessageFor } from "../../actors/runtime/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { newKeyId } from "../../actors/keys/mod.ts";
import type { ApiKeyMessages, ApiKeyTerms, IssuedKeyReply } from "../../actors/keys/mod.ts";
import { type ApiKeyStore, type ApiKeySummary, summarizeApiKey } from "../../storage/api_key_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import type { AppEnv } from "../http/app_env.ts";
import { openApiApp } from "../http/openapi.ts";
import { requireOrg } from "../http/path_ids.ts";
import { parseOrThrow } from "../http/validation.ts";
import {
  deleteKeyRoute,
  getKeyRoute,
  issueKeyRoute,
  issueSchema,
  listKeysRoute,
  revokeKeyRoute,
  rotateKeyRoute,
} from "./admin_keys_api.ts";

export { MAX_KEY_RPM } from "./admin_keys_api.ts";

export interface AdminKeyDeps {
  actors: ActorSystem;
  keyActor: ActorKind<ApiKeyMessages>;
  keys: ApiKeyStore;
  orgs: Pick<OrgStore, "get" | "minerRegistration">;
  clock: Clock;
}

/** What issuing needs from the clock and storage, checked like the body (400 naming the field). */
function termsSchema(facts: { nowMs: number; pinOwner: string | undefined }) {
  return z.object({
    orgId: z.string(),
    expiresAt: z.string().refine((at) => Date.parse(at) > facts.nowMs, "must be in the future").optional(),
    pinnedMinerHotkey: z.string().optional(),
  }).refine((terms) => terms.pinnedMinerHotkey === undefined || facts.pinOwner === terms.orgId, {
    path: ["pinnedMinerHotkey"],
    message: "must be a miner registered to this organisation",
  });
}

/** An org's keys without secrets, oldest first (for `GET /admin/v1/orgs/{orgId}` and the key listing). */
export async function listOrgKeys(keys: ApiKeyStore, orgId: string): Promise<ApiKeySummary[]> {
  return (await keys.listByOrg(orgId)).map(summarizeApiKey);
}

/** A new key's terms from a body `issueSchema` accepted. */
export function termsOf(orgId: string, body: z.output<typeof issueSchema>): ApiKeyTerms {
  const { pinnedMinerHotkey, expiresAt, ...rest } = body;
  return {
    orgId,
    ...rest,
    ...(pinnedMinerHotkey !== undefined ? { pinnedMinerHotkey } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

/** Checks what the body alone cannot: a future expiry, a pinned miner of the org (400 naming the field). */
export async function checkTerms(
  deps: Pick<AdminKeyDeps, "orgs" | "clock">,
  terms: ApiKeyTerms,
): Promise<void> {
  const pin = terms.pinnedMinerHotkey;
  const pinOwner = pin === undefined ? undefined : (await deps.orgs.minerRegistration(pin))?.orgId;
  parseOrThrow(termsSchema({ nowMs: deps.clock(), pinOwner }), terms, "body");
}

/**
 * The key half of the admin API (docs/api_keys.md), mounted at `/admin/v1` behind `adminAuth`:
 * issue (the full key is in this response only), list, show, rotate, revoke, delete.
 */
export function adminKeyRoutes(deps: AdminKeyDeps): OpenAPIHono<AppEnv> {
  const ask = <K extends keyof ApiKeyMessages>(keyId: string, message: MessageFor<ApiKeyMessages, K>) =>
    deps.actors.ask(deps.keyActor, keyId, message);
  return openApiApp<AppEnv>()
    .openapi(issueKeyRoute, async (c) => {
      const orgId = await requireOrg(deps.orgs, c.req.valid("param").orgId);
      const terms = termsOf(orgId, c.req.valid("json"));
      await checkTerms(deps, terms);
      const reply = await ask(newKeyId(), { type: "issue", terms });
      return c.json(issued(reply), 201);
    })
    .openapi(listKeysRoute, async (c) => {
      const orgId = await requireOrg(deps.orgs, c.req.valid("param").orgId);
      return c.json({ items: await listOrgKeys(deps.keys, orgId) }, 200);
    })
    .openapi(getKeyRoute, async (c) => {
      const { keyId } = c.req.valid("param");
      return c.json({ key: existing(await ask(keyId, { type: "get" }), keyId) }, 200);
    })
    .openapi(
      rotateKeyRoute,
      async (c) => c.json(issued(await ask(c.req.valid("param").keyId, { type: "rotate" })), 200),
    )
    .openapi(revokeKeyRoute, async (c) => {
      const { keyId } = c.req.valid("param");
      return c.json({ key: existing(await ask(keyId, { type: "revoke" }), keyId) }, 200);
    })
    .openapi(deleteKeyRoute, async (c) => {
      await ask(c.req.valid("param").keyId, { type: "delete" });
      return c.body(null, 204);
    });
}

/** The key a reply is about; 404 when there is none. */
function existing(reply: { key: ApiKeySummary | null }, keyId: string): ApiKeySummary {
  if (!reply.key) throw new ServiceError("not_found", `No such API key: ${keyId}`);
  return reply.key;
}

/** The answer to issue and rotate: the full key (shown this once) and the key without secrets. */
function issued(reply: IssuedKeyReply): { apiKey: string; key: ApiKeySummary } {
  return { apiKey: reply.apiKey, key: reply.key };
}
