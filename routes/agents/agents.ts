import type { OpenAPIHono } from "@hono/zod-openapi";
import { isoAt, ServiceError } from "../../actors/kernel/mod.ts";
import type { AskMiner } from "../../actors/agents/mod.ts";
import type { RegisteredMiner, SignatureGuard } from "../../actors/validators/mod.ts";
import type { AuthenticatedKey } from "../../actors/keys/mod.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import type { AppEnv } from "../http/app_env.ts";
import { openApiApp } from "../http/openapi.ts";
import type { ApiKeyAccess, KeyEnv } from "../middleware/api_key_auth.ts";
import { signatureAccess, signedCallerIfAny } from "../middleware/signature_auth.ts";
import { versionJson } from "../http/shared_schemas.ts";
import { getMinerRoute, submitAgentRoute } from "./agents_api.ts";

export interface AgentRouteDeps {
  askMiner: AskMiner;
  orgs: Pick<OrgStore, "get" | "minerRegistration">;
  keys: ApiKeyAccess;
  /** The checks of a miner-signed upload, the same as of validators' requests (docs/signatures.md). */
  guard: SignatureGuard;
  /** `FGW_AGENT_MAX_BYTES`: sets the upload's body limit. */
  maxAgentBytes: number;
}

/**
 * `POST /v1/agents/submit-agent`, mounted at `/v1/agents`: an API key with `predictions:write`
 * (the miner is `minerHotkey`, else the key's pinned miner, else the org's default, and must be
 * registered to the key's org) or a miner signature (the signer, registered to some org). The
 * MinerActor checks and stores the code: 201 for a new version, 200 for code the miner had.
 */
export function agentRoutes(deps: AgentRouteDeps): OpenAPIHono<KeyEnv> {
  const signature = signatureAccess(deps.guard, { role: "miner" });
  const route = submitAgentRoute({ keys: deps.keys, signature, maxAgentBytes: deps.maxAgentBytes });
  return openApiApp<KeyEnv>().openapi(route, async (c) => {
    const { code, name, minerHotkey } = c.req.valid("json");
    const signed = signedCallerIfAny(c)?.miner;
    const miner = signed
      ? signerAsMiner(signed, minerHotkey)
      : await minerOfKey(deps.orgs, c.get("apiKey"), minerHotkey);
    const reply = await deps.askMiner(miner.hotkey, {
      type: "upload",
      orgId: miner.orgId,
      code,
      ...(name === undefined ? {} : { name }),
    });
    const body = versionJson(reply.version, reply.current);
    return reply.created ? c.json(body, 201) : c.json(body, 200);
  });
}

/** A signed upload is the signer's: a `minerHotkey` naming anyone else is refused. */
function signerAsMiner(signed: RegisteredMiner, requested: string | undefined): RegisteredMiner {
  if (requested !== undefined && requested !== signed.hotkey) {
    throw new ServiceError("invalid_request", "A signed upload is for the signing miner", {
      details: {
        fields: [{ field: "minerHotkey", problem: "must be the x-miner-hotkey that signed, or omitted" }],
      },
    });
  }
  return signed;
}

/**
 * The miner of a key's upload: `requested`, else the key's pinned miner, else the org's default;
 * 400 naming `minerHotkey` when there is none; 403 `miner_not_registered` unless it is registered
 * to the key's org (a pinned miner may have been unregistered since the key was issued).
 */
async function minerOfKey(
  orgs: AgentRouteDeps["orgs"],
  key: AuthenticatedKey,
  requested: string | undefined,
): Promise<RegisteredMiner> {
  const hotkey = requested ?? key.pinnedMinerHotkey ?? (await orgs.get(key.orgId))?.defaultMinerHotkey;
  if (!hotkey) {
    throw new ServiceError(
      "invalid_request",
      "Name the miner: the key has no pinned miner and the org no default",
      {
        details: {
          fields: [{ field: "minerHotkey", problem: "Required: no pinned or default miner to fall back on" }],
        },
      },
    );
  }
  if ((await orgs.minerRegistration(hotkey))?.orgId !== key.orgId) {
    throw new ServiceError(
      "miner_not_registered",
      "The miner hotkey is not registered to the key's organisation",
      {
        details: { minerHotkey: hotkey },
      },
    );
  }
  return { hotkey, orgId: key.orgId };
}

/**
 * `GET /admin/v1/miners/{hotkey}`, mounted at `/admin/v1/miners` behind `adminAuth`: the org the
 * hotkey is registered to and its agent versions (digest and size, never the code). 404 for a
 * hotkey that is neither registered nor has uploaded.
 */
export function adminMinerRoutes(deps: Pick<AgentRouteDeps, "askMiner" | "orgs">): OpenAPIHono<AppEnv> {
  return openApiApp<AppEnv>().openapi(getMinerRoute, async (c) => {
    const { hotkey } = c.req.valid("param");
    const [registration, agents] = await Promise.all([
      deps.orgs.minerRegistration(hotkey),
      deps.askMiner(hotkey, { type: "versions" }),
    ]);
    if (!registration && agents.versions.length === 0) {
      throw new ServiceError("not_found", `No such miner: ${hotkey}`);
    }
    const org = registration ? await deps.orgs.get(registration.orgId) : null;
    return c.json({
      hotkey,
      org: registration && org
        ? { id: org.id, name: org.name, registeredAt: isoAt(registration.registeredAtMs) }
        : null,
      currentVersionId: agents.currentVersionId,
      lastUploadAt: agents.lastUploadAtMs === null ? null : isoAt(agents.lastUploadAtMs),
      nextUploadAt: agents.nextUploadAtMs === null ? null : isoAt(agents.nextUploadAtMs),
      versions: agents.versions.map((version) =>
        versionJson(version, version.versionId === agents.currentVersionId)
      ),
    }, 200);
  });
}
