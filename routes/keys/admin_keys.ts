import { Hono } from "hono";
import { z } from "zod";
import type { Clock } from "../../actors/kernel/mod.ts";
import type { ActorKind, ActorSystem } from "../../actors/runtime/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { isSs58Address } from "../../actors/kernel/mod.ts";
import { isKeyId, newKeyId } from "../../actors/keys/mod.ts";
import type { ApiKeyMessage, ApiKeyReply, ApiKeyTerms } from "../../actors/keys/mod.ts";
import {
  API_KEY_SCOPES,
  type ApiKeyStore,
  type ApiKeySummary,
  summarizeApiKey,
} from "../../storage/api_key_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import { requireOrg } from "../billing/admin_orgs.ts";
import type { AppEnv } from "../http/app_env.ts";
import { jsonBody } from "../middleware/json_body.ts";
import { parseOrThrow, plainText } from "../http/validation.ts";

/** Most requests per minute a key may be given. */
export const MAX_KEY_RPM = 1_000_000;

export interface AdminKeyDeps {
  actors: ActorSystem;
  keyActor: ActorKind<ApiKeyMessage, ApiKeyReply>;
  keys: ApiKeyStore;
  orgs: Pick<OrgStore, "get" | "minerRegistration">;
  clock: Clock;
}

const issueSchema = z.strictObject({
  name: z.string().trim().pipe(plainText(100)),
  scopes: z.array(z.enum(API_KEY_SCOPES, { error: `must be one of: ${API_KEY_SCOPES.join(", ")}` })).min(1),
  rateLimitRpm: z.number().int().min(1).max(MAX_KEY_RPM),
  pinnedMinerHotkey: z.string().refine(isSs58Address, "must be an SS58 address").optional(),
  expiresAt: z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString()).optional(),
});

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

function termsOf(orgId: string, body: z.output<typeof issueSchema>): ApiKeyTerms {
  const { pinnedMinerHotkey, expiresAt, ...rest } = body;
  return {
    orgId,
    ...rest,
    ...(pinnedMinerHotkey !== undefined ? { pinnedMinerHotkey } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

async function checkTerms(deps: AdminKeyDeps, terms: ApiKeyTerms): Promise<void> {
  const pin = terms.pinnedMinerHotkey;
  const pinOwner = pin === undefined ? undefined : (await deps.orgs.minerRegistration(pin))?.orgId;
  parseOrThrow(termsSchema({ nowMs: deps.clock(), pinOwner }), terms, "body");
}

/** The `keyId` of a path when it can name a key; else 404 at once (nothing malformed reaches storage). */
function keyIdOf(param: string): string {
  if (!isKeyId(param)) throw new ServiceError("not_found", "No such API key");
  return param;
}

/**
 * The key half of the admin API (DESIGN §5), mounted at `/admin/v1` behind `adminAuth`:
 * issue (the full key is in this response only), list, show, rotate, revoke, delete.
 */
export function adminKeyRoutes(deps: AdminKeyDeps): Hono<AppEnv> {
  const ask = (keyId: string, message: ApiKeyMessage) =>
    deps.actors.ask(deps.keyActor, keyIdOf(keyId), message);
  return new Hono<AppEnv>()
    .post("/orgs/:orgId/keys", jsonBody(issueSchema), async (c) => {
      const orgId = await requireOrg(deps.orgs, c.req.param("orgId"));
      const terms = termsOf(orgId, c.req.valid("json"));
      await checkTerms(deps, terms);
      const reply = await ask(newKeyId(), { type: "issue", terms });
      return c.json({ apiKey: reply.apiKey, key: reply.key }, 201);
    })
    .get("/orgs/:orgId/keys", async (c) => {
      const orgId = await requireOrg(deps.orgs, c.req.param("orgId"));
      return c.json({ items: await listOrgKeys(deps.keys, orgId) });
    })
    .get("/keys/:keyId", async (c) => {
      const reply = await ask(c.req.param("keyId"), { type: "get" });
      if (!reply.key) throw new ServiceError("not_found", `No such API key: ${c.req.param("keyId")}`);
      return c.json({ key: reply.key });
    })
    .post("/keys/:keyId/rotate", async (c) => {
      const reply = await ask(c.req.param("keyId"), { type: "rotate" });
      return c.json({ apiKey: reply.apiKey, key: reply.key });
    })
    .post(
      "/keys/:keyId/revoke",
      async (c) => c.json({ key: (await ask(c.req.param("keyId"), { type: "revoke" })).key }),
    )
    .delete("/keys/:keyId", async (c) => {
      await ask(c.req.param("keyId"), { type: "delete" });
      return c.body(null, 204);
    });
}
