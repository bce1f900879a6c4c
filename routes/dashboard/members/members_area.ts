import { Hono } from "hono";
import type { DashboardEnv } from "../dashboard_visit.ts";
import { type AuditRouteDeps, auditRoutes } from "../audit/audit_routes.tsx";
import { type PasskeyPageDeps, passkeyPageRoutes } from "../passkeys/passkey_page_routes.tsx";
import { type MemberRouteDeps, memberRoutes } from "./member_routes.tsx";

export type MembersAreaDeps = MemberRouteDeps & PasskeyPageDeps & AuditRouteDeps;

/**
 * The people of the organisation in the dashboard: the members page (`/dashboard/members`), the
 * signed-in member's passkeys (`/dashboard/passkeys`) and the audit log (`/dashboard/audit`).
 */
export function membersArea(deps: MembersAreaDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  app.route("/", memberRoutes(deps));
  app.route("/", passkeyPageRoutes(deps));
  app.route("/", auditRoutes(deps));
  return app;
}
