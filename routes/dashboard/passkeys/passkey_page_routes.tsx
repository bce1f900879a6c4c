import { type Context, Hono } from "hono";
import type { AskMembership } from "../../../actors/identity/mod.ts";
import { ServiceError } from "../../../actors/kernel/mod.ts";
import type { MemberStore } from "../../../storage/member_store.ts";
import { pageHandler } from "../../pages/kit/error_page.tsx";
import { renderPage } from "../../pages/kit/render.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { requireMember, signedInOf } from "../require_member.ts";
import { PASSKEYS_PATH } from "../wiring/passkey_wiring.ts";
import { PasskeysPage } from "./passkeys_page.tsx";

export interface PasskeyPageDeps {
  askMembership: AskMembership;
  members: Pick<MemberStore, "credential" | "listCredentials">;
}

/** A credential id as WebAuthn makes it: base64url (at most 1023 bytes, so 1364 characters). */
const CREDENTIAL_ID = /^[A-Za-z0-9_-]{1,1364}$/;

type DashboardContext = Context<DashboardEnv>;

function page(render: (c: DashboardContext) => Promise<Response>) {
  return pageHandler((c) => render(c as unknown as DashboardContext));
}

/**
 * The signed-in member's own passkeys (docs/dashboard.md, "Your passkeys"): the list, removing
 * one (never the last: a member without a passkey could sign in again only through an owner's
 * re-enrolment link or a bound hotkey), and adding another through the registration ceremony
 * (passkey_wiring.ts, the MembershipActor's `addPasskey`). Any member manages its own passkeys,
 * and only its own: another member's passkey is not found.
 */
export function passkeyPageRoutes(deps: PasskeyPageDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get(PASSKEYS_PATH, requireMember(), page((c) => showPasskeys(c, deps)));
  app.post(
    `${PASSKEYS_PATH}/:credentialId/remove`,
    requireMember(),
    page(async (c) => {
      const { member } = signedInOf(c);
      const credentialId = c.req.param("credentialId") ?? "";
      const passkey = CREDENTIAL_ID.test(credentialId) ? await deps.members.credential(credentialId) : null;
      if (passkey?.memberId !== member.id) throw new ServiceError("not_found", "Passkey not found");
      try {
        await deps.askMembership(member.orgId, { type: "removePasskey", memberId: member.id, credentialId });
      } catch (error) {
        // The member's last passkey: the store refused it (two removals at once included).
        if (!(error instanceof ServiceError) || error.details?.["rule"] !== "last_passkey") throw error;
        return showPasskeys(c, deps, error.message, 409);
      }
      return c.redirect(PASSKEYS_PATH, 303);
    }),
  );
  return app;
}

async function showPasskeys(
  c: DashboardContext,
  deps: PasskeyPageDeps,
  refused: string | null = null,
  status: 200 | 409 = 200,
): Promise<Response> {
  const { member } = signedInOf(c);
  return renderPage(
    c,
    <PasskeysPage
      member={member}
      passkeys={await deps.members.listCredentials(member.id)}
      csrfToken={c.get("visit").csrfToken()}
      refused={refused}
    />,
    status,
  );
}
