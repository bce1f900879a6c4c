import type { AuditActor } from "../../../storage/audit_store.ts";
import { type Context, Hono } from "hono";
import type { Clock } from "../../../actors/kernel/mod.ts";
import { type ApiKeyMessages, isKeyId, newKeyId } from "../../../actors/keys/mod.ts";
import type { ActorKind, ActorSystem, MessageFor } from "../../../actors/runtime/mod.ts";
import type { ApiKeyStore, ApiKeySummary } from "../../../storage/api_key_store.ts";
import type { OrgStore } from "../../../storage/org_store.ts";
import { listOrgKeys } from "../../keys/admin_keys.ts";
import { pageHandler } from "../../pages/kit/error_page.tsx";
import { renderPage } from "../../pages/kit/render.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { requireMember, requireSameOrg, signedInOf } from "../require_member.ts";
import { sealKeyFlash, takeKeyFlash } from "./key_flash.ts";
import { EMPTY_KEY_FORM, type KeyFormValues, keyTermsOf, readKeyForm } from "./key_form.ts";
import { KeysPage } from "./keys_page.tsx";
import { type FieldProblem, fieldProblemsOf, isFormRefusal } from "../pages/form_problems.tsx";

export interface KeyRouteDeps {
  actors: ActorSystem;
  keyActor: ActorKind<ApiKeyMessages>;
  keys: ApiKeyStore;
  orgs: Pick<OrgStore, "get" | "minerRegistration">;
  clock: Clock;
}

const KEYS_PATH = "/dashboard/keys";

type DashboardContext = Context<DashboardEnv>;

/** A dashboard page handler: its refusals answered as pages. */
function page(render: (c: DashboardContext) => Promise<Response>) {
  return pageHandler((c) => render(c as unknown as DashboardContext));
}

/**
 * The organisation's API keys in the dashboard (docs/dashboard.md, "API keys"): the list for every
 * member; create, rotate and revoke for owners, through the same ApiKeyActor as the admin API, so
 * a key made here is an ordinary key and a revocation holds on every instance at once. A new
 * secret reaches the browser once, through POST-redirect-GET (key_flash.ts).
 */
export function keyRoutes(deps: KeyRouteDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  const ask = <K extends keyof ApiKeyMessages>(keyId: string, message: MessageFor<ApiKeyMessages, K>) =>
    deps.actors.ask(deps.keyActor, keyId, message);
  /** The key of the path, of the signed-in member's organisation; 404 otherwise. */
  const keyOfPath = async (c: DashboardContext): Promise<ApiKeySummary> => {
    const keyId = c.req.param("keyId") ?? "";
    const key = isKeyId(keyId) ? (await ask(keyId, { type: "get" })).key : null;
    requireSameOrg(c, key?.orgId);
    return key!;
  };

  app.get(
    KEYS_PATH,
    requireMember(),
    page(async (c) => showKeys(c, deps, EMPTY_KEY_FORM, [], await takeKeyFlash(c))),
  );
  app.post(
    KEYS_PATH,
    requireMember("owner"),
    page(async (c) => {
      const values = await readKeyForm(c);
      let terms;
      try {
        terms = await keyTermsOf(values, signedInOf(c).member.orgId, deps);
      } catch (error) {
        if (!isFormRefusal(error)) throw error;
        return showKeys(c, deps, values, fieldProblemsOf(error), null, 400);
      }
      const reply = await ask(newKeyId(), { type: "issue", terms, by: memberActor(c) });
      await sealKeyFlash(c, { keyId: reply.key.keyId, apiKey: reply.apiKey, event: "issued" });
      return c.redirect(KEYS_PATH, 303);
    }),
  );
  app.post(
    `${KEYS_PATH}/:keyId/rotate`,
    requireMember("owner"),
    page(async (c) => {
      const key = await keyOfPath(c);
      const reply = await ask(key.keyId, { type: "rotate", by: memberActor(c) });
      await sealKeyFlash(c, { keyId: key.keyId, apiKey: reply.apiKey, event: "rotated" });
      return c.redirect(KEYS_PATH, 303);
    }),
  );
  app.post(
    `${KEYS_PATH}/:keyId/revoke`,
    requireMember("owner"),
    page(async (c) => {
      const key = await keyOfPath(c);
      await ask(key.keyId, { type: "revoke", by: memberActor(c) });
      return c.redirect(KEYS_PATH, 303);
    }),
  );
  return app;
}

/** The signed-in member, as the audit log names who made a change. */
function memberActor(c: DashboardContext): AuditActor {
  return { kind: "member", memberId: signedInOf(c).member.id };
}

async function showKeys(
  c: DashboardContext,
  deps: KeyRouteDeps,
  form: KeyFormValues,
  problems: FieldProblem[],
  flash: Awaited<ReturnType<typeof takeKeyFlash>>,
  status: 200 | 400 = 200,
): Promise<Response> {
  const { member } = signedInOf(c);
  const org = await deps.orgs.get(member.orgId);
  return renderPage(
    c,
    <KeysPage
      orgName={org?.name ?? member.orgId}
      role={member.role}
      keys={await listOrgKeys(deps.keys, member.orgId)}
      csrfToken={c.get("visit").csrfToken()}
      nowMs={deps.clock()}
      flash={flash}
      form={form}
      problems={problems}
    />,
    status,
  );
}
