import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { CompletionDesk, EarlyCall, EarlyHold, ProviderCatalog } from "../../actors/gateway/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { AuthenticatedKey } from "../../actors/keys/mod.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import { openApiApp, openapiSelfParsed } from "../http/openapi.ts";
import { sendJson } from "../http/answer.ts";
import { entityTag, notModified } from "../http/etag.ts";
import { alongside, type ApiKeyAccess, type KeyEnv } from "../middleware/api_key_auth.ts";
import { declaredJsonBytes, readJsonBody } from "../middleware/json_body.ts";
import { completionJson } from "./completion_json.ts";
import {
  completionRequestSchema,
  completionRoute,
  CREDITS_REMAINING,
  listProvidersRoute,
} from "./gateway_api.ts";

export interface GatewayRouteDeps {
  catalog: ProviderCatalog;
  /** The owner of every billed call: the early hold, the hold, the provider call and the charge. */
  desk: CompletionDesk;
  keys: ApiKeyAccess;
  orgs: Pick<OrgStore, "minerRegistration">;
  /** `FGW_GATEWAY_MAX_BODY_BYTES`: the completion body's limit (413 beyond). */
  maxBodyBytes: number;
}

/**
 * The customer gateway, mounted at `/v1/gateway`: `GET /providers` (public, cacheable) and
 * `POST /completions` (API key with `gateway:write`), billed to the key's organisation. For a key
 * this instance already verified, the desk reserves the call's hold while the key is counted
 * (docs/gateway.md, "The early hold").
 */
export function gatewayRoutes(deps: GatewayRouteDeps): OpenAPIHono<KeyEnv<EarlyHold>> {
  const app = openApiApp<KeyEnv<EarlyHold>>();
  openapiSelfParsed(app, listProvidersRoute, providerListing(deps.catalog.listing()));
  const early = alongside((c) => earlyCall(c, deps.maxBodyBytes), deps.desk.holdEarly);
  const route = completionRoute({ ...deps, alongside: early });
  return app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const key = c.get("apiKey");
    const minerHotkey = await attributedMiner(deps.orgs, key, {
      requested: body.minerHotkey,
      orgDefault: c.get("orgDefaultMiner"),
    });
    const result = await deps.desk.complete(body, {
      orgId: key.orgId,
      requestId: c.env.requestId,
      keyId: key.keyId,
      ...(minerHotkey === null ? {} : { minerHotkey }),
      early: c.get("alongside"),
    });
    return sendJson(c, completionJson(result), 200, {
      [CREDITS_REMAINING]: result.balanceAfterMicro.toString(),
    });
  });
}

/**
 * The request as the early hold reads it before the gate: only a body the gate would take as it
 * is declared (JSON, with a Content-Length within the route's limit, no other framing), read once
 * (the gate waits for this same read) and checked against the route's schema.
 */
function earlyCall(c: Context<KeyEnv>, maxBodyBytes: number): EarlyCall | null {
  const bytes = declaredJsonBytes(c);
  if (bytes === null || bytes > maxBodyBytes) return null;
  const read = async () => {
    try {
      const parsed = completionRequestSchema.safeParse(await readJsonBody(c));
      return parsed.success ? parsed.data : null;
    } catch {
      return null; // not UTF-8 or not JSON: the gate answers it
    }
  };
  return { requestId: c.env.requestId, body: { bytes, read } };
}

/**
 * The handler of the provider listing: its JSON bytes and ETag are made once (the catalog does
 * not change while the service runs), so a request costs a header comparison.
 */
function providerListing(listing: unknown) {
  const bytes = new TextEncoder().encode(JSON.stringify(listing));
  const etag = entityTag(bytes);
  return async (c: Context) => {
    const tag = await etag;
    const headers = { "Cache-Control": "public, max-age=60", ETag: tag };
    if (notModified(c, tag)) return c.body(null, 304, headers);
    return c.body(bytes, 200, { ...headers, "Content-Type": "application/json" });
  };
}

function notRegistered(hotkey: string, why: string): ServiceError {
  return new ServiceError(
    "miner_not_registered",
    `The miner hotkey is not registered to the key's organisation${why}`,
    {
      details: { minerHotkey: hotkey },
    },
  );
}

/**
 * The miner a call is attributed to (docs/gateway.md, "Miner attribution"): the body's `minerHotkey`, else
 * the key's pinned miner, else the organisation's default miner, else none. A named or pinned miner must be
 * registered to the key's organisation now (403 `miner_not_registered`): a pinned miner may have
 * been unregistered, or moved to another organisation, since the key was issued. The default
 * miner is the one the key's admission read with the org's balance (no read of its own).
 */
export async function attributedMiner(
  orgs: GatewayRouteDeps["orgs"],
  key: AuthenticatedKey,
  miners: { requested: string | undefined; orgDefault: string | null },
): Promise<string | null> {
  const { requested, orgDefault } = miners;
  const named = requested ?? key.pinnedMinerHotkey;
  if (named !== undefined) {
    if ((await orgs.minerRegistration(named))?.orgId !== key.orgId) {
      throw notRegistered(named, requested === undefined ? " (the key's pinned miner)" : "");
    }
    return named;
  }
  return orgDefault;
}
