import { Hono } from "hono";
import { type Clock, silentLogger } from "../../actors/kernel/mod.ts";
import { SessionDesk } from "../../actors/identity/mod.ts";
import { onError } from "../../routes/middleware/error_handler.ts";
import { dashboardSessionRoutes } from "../../routes/dashboard/dashboard.ts";
import type { DashboardEnv } from "../../routes/dashboard/dashboard_visit.ts";
import {
  requireMember,
  requireSameOrg,
  signedInOf,
  startSession,
} from "../../routes/dashboard/require_member.ts";
import type { Storage } from "../../storage/storage.ts";

/** The dashboard origin of the tests (WebAuthn refuses IP addresses; browsers take localhost as secure). */
export const ORIGIN = "http://localhost:8080";

/** Something that answers requests: an app, or a test service's `request`. */
export type Fetcher = (path: string, init?: RequestInit) => Response | Promise<Response>;

/**
 * The dashboard's real session plumbing (`dashboardSessionRoutes`: the middleware and sign-out) on
 * `storage`, with test pages in the places the dashboard's own pages will take: a signed-in page,
 * an owner's action, a resource of an org, a sign-in that calls `startSession` for the member
 * named in its form, and the browser's CSRF token.
 */
export function dashboardTestApp(
  storage: Storage,
  clock: Clock,
): { app: Hono<DashboardEnv>; desk: SessionDesk } {
  const desk = new SessionDesk({
    sessions: storage.sessions,
    members: storage.members,
    orgs: storage.orgs,
    clock,
  });
  const app = new Hono<DashboardEnv>();
  app.onError(onError(silentLogger));
  app.route("/", dashboardSessionRoutes({ sessions: desk, publicOrigin: ORIGIN }));
  app.get("/dashboard/me", requireMember(), (c) => {
    const { member, session } = signedInOf(c);
    return c.json({ memberId: member.id, role: member.role, sessionId: session.id });
  });
  app.post("/dashboard/owner-action", requireMember("owner"), (c) => c.json({ done: true }));
  app.get("/dashboard/orgs/:orgId/thing", requireMember(), (c) => {
    requireSameOrg(c, c.req.param("orgId"));
    return c.json({ orgId: c.req.param("orgId") });
  });
  app.post("/dashboard/test-sign-in", async (c) => {
    const form = await c.req.parseBody();
    await startSession(c, String(form["memberId"]), { kind: "passkey" });
    return c.redirect("/dashboard/me", 303);
  });
  app.get("/dashboard/csrf", (c) => c.json({ token: c.get("visit").csrfToken() }));
  return { app, desk };
}

/** A browser: keeps the cookies its answers set (and drops those they expire) and sends them back. */
export class TestBrowser {
  readonly cookies = new Map<string, string>();
  /** Every `Set-Cookie` value received, in order. */
  readonly setCookies: string[] = [];

  async fetch(target: Fetcher, path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set("cookie", [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    }
    const response = await target(path, { ...init, headers });
    for (const cookie of response.headers.getSetCookie()) {
      this.setCookies.push(cookie);
      const [pair = ""] = cookie.split(";");
      const name = pair.slice(0, pair.indexOf("="));
      const value = pair.slice(pair.indexOf("=") + 1);
      if (/;\s*Max-Age=0\b/i.test(cookie) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** This browser's CSRF token, as a dashboard page gives it. */
  async csrfToken(target: Fetcher): Promise<string> {
    return (await (await this.fetch(target, "/dashboard/csrf")).json()).token;
  }

  /** A same-origin form POST carrying this browser's CSRF token. */
  async post(target: Fetcher, path: string, fields: Record<string, string> = {}): Promise<Response> {
    const token = await this.csrfToken(target);
    return await this.fetch(target, path, {
      method: "POST",
      headers: { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...fields, _csrf: token }),
    });
  }
}

/** `app.request` as a `Fetcher`. */
export function fetcherOf(app: Hono<DashboardEnv>): Fetcher {
  return (path, init) => app.request(path, init);
}
