import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AuditPosition, AuditStore } from "../../../storage/audit_store.ts";
import type { MemberStore } from "../../../storage/member_store.ts";
import type { OrgStore } from "../../../storage/org_store.ts";
import { CursorCodec } from "../../http/cursor.ts";
import { parseOrThrow, singleValuedQuery } from "../../http/validation.ts";
import { pageHandler } from "../../pages/kit/error_page.tsx";
import { renderPage } from "../../pages/kit/render.ts";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { requireMember, signedInOf } from "../require_member.ts";
import { AuditPage } from "./audit_page.tsx";

export interface AuditRouteDeps {
  audit: Pick<AuditStore, "list">;
  members: Pick<MemberStore, "listMembers">;
  orgs: Pick<OrgStore, "get">;
  cursors: CursorCodec;
}

/** Entries per page. */
export const AUDIT_PAGE_SIZE = 50;

const AuditQuery = z.strictObject({ cursor: z.string().min(1).max(1_000).optional() });

/**
 * `GET /dashboard/audit` (owners only): the organisation's audit log, newest first, who did what
 * when in words, a keyset page at a time (`?cursor=` from the "Older entries" link, bound to the
 * organisation: another organisation's cursor is refused with 400).
 */
export function auditRoutes(deps: AuditRouteDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.get(
    "/dashboard/audit",
    requireMember("owner"),
    pageHandler(async (raw) => {
      const c = raw as unknown as Context<DashboardEnv>;
      const { member } = signedInOf(c);
      const query = parseOrThrow(AuditQuery, singleValuedQuery(c.req.queries(), c.req.url), "query");
      const fingerprint = CursorCodec.fingerprint({ list: "dashboard-audit", orgId: member.orgId });
      const before = query.cursor === undefined
        ? undefined
        : deps.cursors.decode<AuditPosition>(fingerprint, query.cursor);
      const [org, members, rows] = await Promise.all([
        deps.orgs.get(member.orgId),
        deps.members.listMembers(member.orgId),
        deps.audit.list(member.orgId, { limit: AUDIT_PAGE_SIZE + 1, ...(before ? { before } : {}) }),
      ]);
      const entries = rows.slice(0, AUDIT_PAGE_SIZE);
      const last = entries.at(-1);
      const nextCursor = rows.length > AUDIT_PAGE_SIZE && last
        ? deps.cursors.encode(fingerprint, { atMs: last.atMs, id: last.id })
        : null;
      const names = new Map(members.map((known) => [known.id, known.displayName]));
      // A removed member is named by what its removal recorded, else by its id.
      for (const entry of rows) {
        const name = entry.details["displayName"];
        if (entry.action === "member.removed" && typeof name === "string" && !names.has(entry.subject)) {
          names.set(entry.subject, name);
        }
      }
      return renderPage(
        c,
        <AuditPage
          orgName={org?.name ?? member.orgId}
          entries={entries}
          nameOf={(memberId) => names.get(memberId) ?? `a former member (${memberId})`}
          nextCursor={nextCursor}
          paged={before !== undefined}
        />,
      );
    }),
  );
  return app;
}
