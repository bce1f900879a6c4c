import { z } from "zod";
import { ASKS_ACTOR, defineRoute, jsonBody, jsonResponse } from "../http/openapi.ts";
import { orgIdParam } from "../http/path_ids.ts";

/** Every member id the service makes: `mbr_` and 24 lowercase hex characters. */
export const MEMBER_ID = /^mbr_[0-9a-f]{24}$/;

const instant = z.string().meta({ description: "ISO 8601 UTC with milliseconds" });
const role = z.enum(["owner", "viewer"]).meta({
  description: "`owner`: everything the dashboard does; `viewer`: reads only.",
});

const orgPath = z.object({ orgId: orgIdParam });

/** `{role}` invites a new member; `{memberId}` re-enrols one who lost every passkey (its role kept). */
const invitationBody = z.strictObject({
  role: role.optional().meta({ description: "The new member's role (a `join` invitation)." }),
  memberId: z.string().regex(MEMBER_ID, "must be a member id (mbr_…)").optional().meta({
    description: "The member to re-enrol (a `reenrol` invitation: a new passkey, the same member and role).",
  }),
}).superRefine((body, ctx) => {
  if ((body.role === undefined) === (body.memberId === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: [body.role === undefined ? "role" : "memberId"],
      message: "give either `role` (a new member) or `memberId` (re-enrol a member), not both",
    });
  }
});

export const MemberSchema = z.object({
  id: z.string(),
  orgId: z.string(),
  displayName: z.string(),
  role,
  createdAt: instant,
}).meta({ id: "Member" });

export const InvitationSchema = z.object({
  id: z.string(),
  orgId: z.string(),
  role,
  kind: z.enum(["join", "reenrol"]).meta({
    description: "`join` makes a new member; `reenrol` gives `memberId` a new passkey.",
  }),
  memberId: z.string().nullable(),
  createdAt: instant,
  expiresAt: instant,
}).meta({ id: "Invitation" });

const InvitationCreated = z.object({
  invitation: InvitationSchema,
  link: z.string().meta({
    description: "The single-use sign-in link, `<FGW_PUBLIC_URL>/dashboard/invitations/<token>`: shown " +
      "only in this response, valid 24 h, used up once a passkey is registered with it.",
  }),
}).meta({ id: "InvitationCreated" });

export const AuditEntrySchema = z.object({
  id: z.string(),
  at: instant,
  by: z.object({ kind: z.enum(["operator", "member"]), memberId: z.string().optional() }),
  action: z.string().meta({ description: "What changed, e.g. `member.removed` (docs/dashboard.md)." }),
  subject: z.string().meta({ description: "What it is about: a member id, an invitation id, a hotkey…" }),
  details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
}).meta({ id: "AuditEntry" });

/** Query of the audit listing (a repeated parameter is refused). */
const pageSchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(1_000).optional().meta({ description: "`nextCursor` of the previous page." }),
});

const TAGS = ["admin: members"];

export const inviteRoute = defineRoute({
  method: "post",
  path: "/{orgId}/invitations",
  tags: TAGS,
  summary: "Invite a new member, or re-enrol one who lost every passkey (a single-use sign-in link)",
  access: "admin",
  errors: [...ASKS_ACTOR, "dashboard_off"],
  request: { params: orgPath, body: jsonBody(invitationBody) },
  responses: { 201: jsonResponse(InvitationCreated, "The invitation and its link, shown this once.") },
});

export const listMembersRoute = defineRoute({
  method: "get",
  path: "/{orgId}/members",
  tags: TAGS,
  summary: "List an organisation's members and open invitations",
  access: "admin",
  request: { params: orgPath },
  responses: {
    200: jsonResponse(
      z.object({ members: z.array(MemberSchema), invitations: z.array(InvitationSchema) }),
      "Members (oldest first) and invitations not yet used or expired.",
    ),
  },
});

export const auditRoute = defineRoute({
  method: "get",
  path: "/{orgId}/audit",
  tags: TAGS,
  summary: "Page through the organisation's audit log, newest first",
  access: "admin",
  request: { params: orgPath, query: pageSchema },
  responses: {
    200: jsonResponse(
      z.object({ items: z.array(AuditEntrySchema), nextCursor: z.string().nullable() }),
      "A page, newest first.",
    ),
  },
});
