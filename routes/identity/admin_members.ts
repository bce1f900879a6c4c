import type { OpenAPIHono } from "@hono/zod-openapi";
import { isoAt, ServiceError } from "../../actors/kernel/mod.ts";
import {
  type AskMembership,
  invitationLink,
  type InvitationReply,
  type InvitationSummary,
} from "../../actors/identity/mod.ts";
import type { AuditActor, AuditEntry, AuditPosition, AuditStore } from "../../storage/audit_store.ts";
import type { MemberRecord, MemberStore } from "../../storage/member_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import type { AppEnv } from "../http/app_env.ts";
import { CursorCodec } from "../http/cursor.ts";
import { openApiApp } from "../http/openapi.ts";
import { requireOrg } from "../http/path_ids.ts";
import { auditRoute, inviteRoute, listMembersRoute } from "./admin_members_api.ts";

export interface AdminMemberDeps {
  askMembership: AskMembership;
  members: Pick<MemberStore, "listMembers" | "listInvitations">;
  audit: AuditStore;
  orgs: Pick<OrgStore, "get">;
  cursors: CursorCodec;
  clock: () => number;
  /** `FGW_PUBLIC_URL`, as an origin; undefined: the dashboard is off. */
  publicOrigin: string | undefined;
}

const OPERATOR: AuditActor = { kind: "operator" };

/**
 * The members half of the admin API (docs/dashboard.md), mounted at `/admin/v1/orgs` behind
 * `adminAuth`: invite a member (an org's first owner joins this way) or re-enrol one who lost
 * every passkey, list members and open invitations, and page through the audit log.
 */
export function adminMemberRoutes(deps: AdminMemberDeps): OpenAPIHono<AppEnv> {
  return openApiApp<AppEnv>()
    .openapi(inviteRoute, async (c) => {
      const publicOrigin = dashboardOrigin(deps);
      const { orgId } = c.req.valid("param");
      const { role, memberId } = c.req.valid("json");
      const reply = await deps.askMembership(
        orgId,
        memberId === undefined
          ? { type: "invite", role: role ?? "viewer", by: OPERATOR }
          : { type: "reenrol", memberId, by: OPERATOR },
      );
      return c.json(invitationCreated(reply, publicOrigin), 201);
    })
    .openapi(listMembersRoute, async (c) => {
      const orgId = await requireOrg(deps.orgs, c.req.valid("param").orgId);
      const [members, invitations] = await Promise.all([
        deps.members.listMembers(orgId),
        deps.members.listInvitations(orgId, { nowMs: deps.clock() }),
      ]);
      return c.json({ members: members.map(memberJson), invitations: invitations.map(invitationJson) }, 200);
    })
    .openapi(auditRoute, async (c) => {
      const orgId = await requireOrg(deps.orgs, c.req.valid("param").orgId);
      const { limit, cursor } = c.req.valid("query");
      const fingerprint = CursorCodec.fingerprint({ list: "audit", orgId });
      const before = cursor === undefined
        ? undefined
        : deps.cursors.decode<AuditPosition>(fingerprint, cursor);
      const rows = await deps.audit.list(orgId, { limit: limit + 1, ...(before ? { before } : {}) });
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      const nextCursor = rows.length > limit && last
        ? deps.cursors.encode(fingerprint, { atMs: last.atMs, id: last.id })
        : null;
      return c.json({ items: items.map(auditJson), nextCursor }, 200);
    });
}

/** The dashboard's origin, or 409 `dashboard_off` saying how to turn it on. */
function dashboardOrigin(deps: AdminMemberDeps): string {
  if (deps.publicOrigin === undefined) {
    throw new ServiceError(
      "dashboard_off",
      "The dashboard is off: set FGW_PUBLIC_URL to the origin it is served at (e.g. https://gateway.example.org, " +
        "or http://localhost:8080 in development) and restart the service",
    );
  }
  return deps.publicOrigin;
}

function invitationCreated(reply: InvitationReply, publicOrigin: string) {
  return { invitation: invitationJson(reply.invitation), link: invitationLink(publicOrigin, reply.token) };
}

export function memberJson(member: MemberRecord) {
  return {
    id: member.id,
    orgId: member.orgId,
    displayName: member.displayName,
    role: member.role,
    createdAt: isoAt(member.createdAtMs),
  };
}

export function invitationJson(invitation: InvitationSummary) {
  return {
    id: invitation.id,
    orgId: invitation.orgId,
    role: invitation.role,
    kind: invitation.kind,
    memberId: invitation.memberId,
    createdAt: isoAt(invitation.createdAtMs),
    expiresAt: isoAt(invitation.expiresAtMs),
  };
}

function auditJson(entry: AuditEntry) {
  return {
    id: entry.id,
    at: isoAt(entry.atMs),
    by: entry.by.kind === "member" ? { kind: "member" as const, memberId: entry.by.memberId } : OPERATOR,
    action: entry.action,
    subject: entry.subject,
    details: entry.details,
  };
}
