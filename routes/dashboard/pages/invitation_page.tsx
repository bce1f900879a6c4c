import type { Context } from "hono";
import { openInvitation } from "../../../actors/identity/mod.ts";
import { type Clock, ServiceError } from "../../../actors/kernel/mod.ts";
import type { MemberStore } from "../../../storage/member_store.ts";
import type { OrgStore } from "../../../storage/org_store.ts";
import { Layout } from "../../pages/kit/layout.tsx";
import { renderPage } from "../../pages/kit/render.ts";
import { DISPLAY_NAME_MAX } from "../display_name.ts";
import { PASSKEY_PATHS } from "../ceremony/passkey_routes.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { INVITATION_PARAM } from "../wiring/passkey_wiring.ts";
import { PasskeyButton } from "./passkey_button.tsx";

export interface InvitationPageDeps {
  members: Pick<MemberStore, "invitation">;
  orgs: Pick<OrgStore, "get">;
  clock: Clock;
}

/**
 * `GET /dashboard/invitations/<token>`: what accepting the invitation does, and the button that
 * registers a passkey for it. Opening the page uses nothing up; a used, revoked, expired or forged
 * link is the same 404 page.
 */
export async function invitationPage(c: Context<DashboardEnv>, deps: InvitationPageDeps): Promise<Response> {
  const token = c.req.param("token") ?? "";
  const invitation = await openInvitation(deps.members, token, deps.clock());
  const org = invitation === null ? null : await deps.orgs.get(invitation.orgId);
  if (invitation === null || org === null) {
    throw new ServiceError(
      "not_found",
      "This invitation link cannot be used: it was used already, revoked, or it expired. Ask an owner of your organisation (or the operator) for a new one.",
    );
  }
  const query = `?${INVITATION_PARAM}=${encodeURIComponent(token)}`;
  const joining = invitation.kind === "join";
  return renderPage(
    c,
    <Layout title="Accept your invitation" path="/dashboard">
      <h1>Accept your invitation</h1>
      <p>
        {joining
          ? `You are invited to join ${org.name} as ${invitation.role === "owner" ? "an owner" : "a viewer"}.`
          : `This link gives your membership of ${org.name} a new passkey.`}
      </p>
      <p>
        Accepting registers a <strong>passkey</strong>{" "}
        with this site: your device or password manager makes a key pair and keeps its private half; you will
        confirm with your fingerprint, face, PIN or security key. You then sign in with it, without a password
        or a user name. The link works once: it is used up when the passkey is stored, and it expires 24 hours
        after it was made.
      </p>
      {joining
        ? (
          <p>
            <label for="display-name">Your name, as the organisation's members will see it (optional)</label>
            <br />
            <input
              id="display-name"
              name="displayName"
              type="text"
              maxlength={DISPLAY_NAME_MAX}
              autocomplete="name"
              aria-describedby="display-name-hint"
            />
            <br />
            <span id="display-name-hint">
              Up to {DISPLAY_NAME_MAX} characters. Left blank, you are named after your role.
            </span>
          </p>
        )
        : ""}
      <PasskeyButton
        ceremony="register"
        optionsUrl={`/dashboard${PASSKEY_PATHS.registrationOptions}${query}`}
        verifyUrl={`/dashboard${PASSKEY_PATHS.register}${query}`}
        csrfToken={c.get("visit").csrfToken()}
        label="Register a passkey and join"
        done="Passkey registered."
        nameInput={joining ? "display-name" : undefined}
      />
    </Layout>,
  );
}
