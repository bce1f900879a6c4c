import { Hono } from "hono";
import type { SessionDesk } from "../../actors/identity/mod.ts";
import { dashboardSession } from "./dashboard_session.ts";
import type { DashboardEnv } from "./dashboard_visit.ts";
import { SIGN_IN_PATH } from "./require_member.ts";

export interface DashboardDeps {
  sessions: SessionDesk;
  /** `FGW_PUBLIC_URL`, as an origin. */
  publicOrigin: string;
}

/**
 * The dashboard at `/dashboard` (docs/dashboard.md), mounted only when `FGW_PUBLIC_URL` is set.
 * Every request goes through `dashboardSession` (no-store, the session, `Origin` and CSRF checks
 * on state-changing requests); pages put `requireMember(role?)` in front of themselves. Pages are
 * HTML for people, not API: the OpenAPI document leaves `/dashboard` out.
 */
export function dashboardRoutes(deps: DashboardDeps): Hono<DashboardEnv> {
  const app = new Hono<DashboardEnv>();
  const session = dashboardSession(deps);
  app.use("/dashboard", session);
  app.use("/dashboard/*", session);
  // Sign-out is a POST (a link or an image cannot sign anyone out); it ends the session in storage,
  // so on every instance, and drops the cookie.
  app.post("/dashboard/sign-out", async (c) => {
    await c.get("visit").signOut();
    return c.redirect(SIGN_IN_PATH, 303);
  });
  return app;
}
