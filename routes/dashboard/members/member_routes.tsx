import { type Context, Hono } from "hono";
import { type AskMembership, invitationLink } from "../../../actors/identity/mod.ts";
import { type Clock, ServiceError } from "../../../actors/kernel/mod.ts";
import type { AuditActor } from "../../../storage/audit_store.ts";
import type { MemberStore } from "../../../storage/member_store.ts";
import type { OrgStore } from "../../../storage/org_store.ts";
import { pageHandler } from "../../pages/kit/error_page.tsx";
import { renderPage } from "../../pages/kit/render.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { flashOnce } from "../flash_once.ts";
import { requireMember, requireSameOrg, signedInOf } from "../require_member.ts";
import { INVITATION_ID, MEMBER_ID, type MemberFormProblem, problemsOf, readRoleForm } from "./member_form.ts";
import { type LinkFlash, type MemberRow, MembersPage } from "./members_page.tsx";

export interface MemberRouteDeps {
  askMembership: AskMembership;
  members: Pick<MemberStore, "member" | "listMembers" | "listInvitations" | "listCredentials" | "invitation">;
  orgs: Pick<OrgStore, "get" | "listMiners">;
  clock: Clock;
  /** `FGW_PUBLIC_URL`, as an origin: invitation links start with it. */
  publicOrigin: string;
}

export const MEMBERS_PATH = "/dashboard/members";

/** An invitation's link on its way to the one page that shows it (POST-redirect-GET). */
const linkFlash = flashOnce<LinkFlash>("fgw_link_once");

type DashboardContext = Context<DashboardEnv>;

function page(render: (c: DashboardContext) => Promise<Response>) {
  return pageHandler((c) => render(c as unknown as DashboardContext));
}

/**
 * The organisation's members in the dashboard (docs/dashboard.md, "Members"): the list for every
 * member; for owners, inviting (the link shown once), revoking an invitation, changing a role,
 * removing a member and a re-enrolment link, each through the organisation's MembershipActor (the
 * same as the admin API's, which writes the audit entry and keeps the last owner).
 */
export function memberRoutes(deps: MemberRouteDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  const by = (c: DashboardContext): AuditActor => ({ kind: "member", memberId: signedInOf(c).member.id });
  /** The member of the path, of the signed-in member's organisation; 404 otherwise. */
  const memberOfPath = async (c: DashboardContext) => {
    const memberId = c.req.param("memberId") ?? "";
    const member = MEMBER_ID.test(memberId) ? await deps.members.member(memberId) : null;
    requireSameOrg(c, member?.orgId);
    return member!;
  };
  /** Runs an owner's change; a refused form (400) or the last owner (409) shows the page again, the form's problem named. */
  const change = async (c: DashboardContext, form: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      const refused = error instanceof ServiceError &&
        (error.code === "invalid_request" || error.details?.["rule"] === "last_owner");
      if (!refused) throw error;
      const status = error.code === "invalid_request" ? 400 : 409;
      return showMembers(c, deps, null, { form, problems: problemsOf(error) }, status);
    }
    return c.redirect(MEMBERS_PATH, 303);
  };
  const sealLink = async (c: DashboardContext, flash: Omit<LinkFlash, "link">, token: string) =>
    await linkFlash.seal(c, { ...flash, link: invitationLink(deps.publicOrigin, token) });

  app.get(MEMBERS_PATH, requireMember(), page(async (c) => showMembers(c, deps, await linkFlash.take(c))));
  app.post(
    `${MEMBERS_PATH}/invitations`,
    requireMember("owner"),
    page((c) =>
      change(c, "invite", async () => {
        const role = await readRoleForm(c);
        const reply = await deps.askMembership(signedInOf(c).member.orgId, {
          type: "invite",
          role,
          by: by(c),
        });
        await sealLink(c, { kind: "join", role, memberName: null }, reply.token);
      })
    ),
  );
  app.post(
    `${MEMBERS_PATH}/invitations/:invitationId/revoke`,
    requireMember("owner"),
    page(async (c) => {
      const invitationId = c.req.param("invitationId") ?? "";
      const invitation = INVITATION_ID.test(invitationId)
        ? await deps.members.invitation(invitationId)
        : null;
      requireSameOrg(c, invitation?.orgId);
      await deps.askMembership(invitation!.orgId, { type: "revokeInvitation", invitationId, by: by(c) });
      return c.redirect(MEMBERS_PATH, 303);
    }),
  );
  app.post(
    `${MEMBERS_PATH}/:memberId/role`,
    requireMember("owner"),
    page(async (c) => {
      const member = await memberOfPath(c);
      return await change(c, member.id, async () => {
        const role = await readRoleForm(c);
        await deps.askMembership(member.orgId, { type: "changeRole", memberId: member.id, role, by: by(c) });
      });
    }),
  );
  app.post(
    `${MEMBERS_PATH}/:memberId/remove`,
    requireMember("owner"),
    page(async (c) => {
      const member = await memberOfPath(c);
      return await change(c, member.id, async () => {
        await deps.askMembership(member.orgId, { type: "removeMember", memberId: member.id, by: by(c) });
      });
    }),
  );
  app.post(
    `${MEMBERS_PATH}/:memberId/reenrol`,
    requireMember("owner"),
    page(async (c) => {
      const member = await memberOfPath(c);
      const reply = await deps.askMembership(member.orgId, {
        type: "reenrol",
        memberId: member.id,
        by: by(c),
      });
      await sealLink(c, { kind: "reenrol", role: member.role, memberName: member.displayName }, reply.token);
      return c.redirect(MEMBERS_PATH, 303);
    }),
  );
  return app;
}

async function showMembers(
  c: DashboardContext,
  deps: MemberRouteDeps,
  flash: LinkFlash | null,
  refused: MemberFormProblem | null = null,
  status: 200 | 400 | 409 = 200,
): Promise<Response> {
  const { member: me } = signedInOf(c);
  const [org, members, invitations, miners] = await Promise.all([
    deps.orgs.get(me.orgId),
    deps.members.listMembers(me.orgId),
    deps.members.listInvitations(me.orgId, { nowMs: deps.clock() }),
    deps.orgs.listMiners(me.orgId),
  ]);
  const rows: MemberRow[] = await Promise.all(members.map(async (member) => ({
    member,
    passkeys: (await deps.members.listCredentials(member.id)).length,
    hotkeys: miners.filter((miner) => miner.boundMemberId === member.id).map((miner) => miner.hotkey),
  })));
  return renderPage(
    c,
    <MembersPage
      orgName={org?.name ?? me.orgId}
      me={me}
      rows={rows}
      invitations={invitations}
      csrfToken={c.get("visit").csrfToken()}
      flash={flash}
      refused={refused}
    />,
    status,
  );
}
