import type { AdminCommand, AdminOptions } from "./admin_command.ts";
import { formatPage, formatRecord, formatTable } from "./admin_format.ts";

const seg = encodeURIComponent;

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pageQuery(options: AdminOptions): string {
  const query = new URLSearchParams();
  if (typeof options.cursor === "string") query.set("cursor", options.cursor);
  if (typeof options.limit === "string") query.set("limit", options.limit);
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** An invitation answer: the link first, with the once-only warning. */
export function formatInvitation(body: Json): string {
  if (!isRecord(body) || typeof body.link !== "string") return formatRecord(body);
  return [
    `link  ${body.link}`,
    "      (shown only now, valid 24 h, used up once a passkey is registered with it: send it to the",
    "      person it is for over a channel you trust)",
    "",
    formatRecord(body.invitation),
  ].join("\n");
}

function formatMembers(body: Json): string {
  if (!isRecord(body)) return formatRecord(body);
  const members = Array.isArray(body.members) ? body.members : [];
  const invitations = Array.isArray(body.invitations) ? body.invitations : [];
  return ["members:", formatTable(members, "  "), "", "open invitations:", formatTable(invitations, "  ")]
    .join("\n");
}

/** The dashboard's commands of `deno task admin` (docs/dashboard.md, "The admin command"). */
export const MEMBER_COMMANDS: AdminCommand[] = [
  {
    words: ["invite"],
    args: ["orgId"],
    options: ["role"],
    required: ["role"],
    summary: "--role owner|viewer: a single-use sign-in link for a new member (printed once)",
    call: ([orgId], options) => ({
      method: "POST",
      path: `/admin/v1/orgs/${seg(orgId!)}/invitations`,
      body: { role: options.role },
    }),
    render: formatInvitation,
  },
  {
    words: ["reenrol"],
    args: ["orgId", "memberId"],
    summary: "a single-use link giving a member who lost every passkey a new one",
    call: ([orgId, memberId]) => ({
      method: "POST",
      path: `/admin/v1/orgs/${seg(orgId!)}/invitations`,
      body: { memberId },
    }),
    render: formatInvitation,
  },
  {
    words: ["members"],
    args: ["orgId"],
    summary: "an organisation's members and open invitations",
    call: ([orgId]) => ({ method: "GET", path: `/admin/v1/orgs/${seg(orgId!)}/members` }),
    render: formatMembers,
  },
  {
    words: ["audit"],
    args: ["orgId"],
    options: ["cursor", "limit"],
    summary: "who changed what, newest first [--cursor C] [--limit N]",
    call: ([orgId], options) => ({
      method: "GET",
      path: `/admin/v1/orgs/${seg(orgId!)}/audit${pageQuery(options)}`,
    }),
    render: (body, [orgId]) => formatPage(body, (cursor) => `admin audit ${orgId} --cursor ${cursor}`),
  },
];
