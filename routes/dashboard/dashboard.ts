import { type Context, Hono } from "hono";
import type { AskOrg } from "../../actors/billing/mod.ts";
import type { AskMembership, SessionDesk } from "../../actors/identity/mod.ts";
import type { Clock } from "../../actors/kernel/mod.ts";
import type { MemberStore } from "../../storage/member_store.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import type { SessionStore } from "../../storage/session_store.ts";
import { pageHandler } from "../pages/kit/error_page.tsx";
import { passkeyRoutes } from "./ceremony/passkey_routes.ts";
import { passkeyScriptRoutes } from "./ceremony/passkey_script.ts";
import { dashboardSession } from "./dashboard_session.ts";
import type { DashboardEnv } from "./dashboard_visit.ts";
import { homePage } from "./pages/home_page.tsx";
import { invitationPage } from "./pages/invitation_page.tsx";
import { signInPage } from "./pages/sign_in_page.tsx";
import { requireMember, SIGN_IN_PATH } from "./require_member.ts";
import { dashboardNav } from "./pages/dashboard_nav.tsx";
import { passkeyWiring } from "./wiring/passkey_wiring.ts";
import { type KeyRouteDeps, keyRoutes } from "./keys/key_routes.tsx";
import { type UsagePageDeps, usagePageRoutes } from "./usage/usage_page_routes.tsx";
import { membersArea } from "./members/members_area.ts";
import type { AuditStore } from "../../storage/audit_store.ts";
import type { CursorCodec } from "../http/cursor.ts";
import { minersArea, type MinersAreaDeps } from "./miners/miners_area.ts";
import { PASSKEY_PATHS } from "./ceremony/passkey_routes.ts";
import type { SignInLimits } from "./sign_in_limits.ts";
import { passkeyAccountOf } from "./wiring/passkey_account.ts";
import { hotkeyAccountOf } from "./wiring/hotkey_account.ts";
import { HOTKEY_SIGN_IN_PATHS } from "./pages/sign_in_page.tsx";

export interface DashboardDeps {
  sessions: SessionDesk;
  /** `FGW_PUBLIC_URL`, as an origin. */
  publicOrigin: string;
  /** What the pages and ceremonies read and write through (the same actors and stores as the admin API). */
  stores: {
    members: MemberStore;
    sessions: SessionStore;
    orgs: OrgStore;
  };
  askMembership: AskMembership;
  askOrg: AskOrg;
  clock: Clock;
  /** API keys: the same actor and store as the admin API. */
  keys: Omit<KeyRouteDeps, "orgs" | "clock">;
  /** The usage view and the ledger: the same reads as `GET /v1/usage` and the admin ledger. */
  usage: Pick<UsagePageDeps, "usage" | "billing" | "cursors">;
  /** The audit log (the members area's audit page) and the codec of its page cursors. */
  audit: AuditStore;
  cursors: CursorCodec;
  /** The miners page: usage, the miners' reports, the lease grace. */
  miners: Pick<MinersAreaDeps, "usage" | "reports" | "leaseGraceMs" | "verify">;
  /** Sign-in rate limits per client address and per account, shared by every instance. */
  signInLimits: SignInLimits;
}

/** A page handler of the dashboard: its refusals answered as pages. */
function page(render: (c: Context<DashboardEnv>) => Response | Promise<Response>) {
  return pageHandler(async (c) => await render(c as unknown as Context<DashboardEnv>));
}

/**
 * The dashboard's session plumbing alone: every request under `/dashboard` goes through
 * `dashboardSession` (no-store, the session, `Origin` and CSRF checks on state-changing
 * requests), and sign-out. Routes added to the answer after it go through it too.
 */
export function dashboardSessionRoutes(
  deps: { sessions: SessionDesk; publicOrigin: string },
): Hono<DashboardEnv> {
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

/**
 * The dashboard at `/dashboard` (docs/dashboard.md), mounted only when `FGW_PUBLIC_URL` is set:
 * the session plumbing, the passkey script and endpoints, the invitation, sign-in and home pages.
 * Pages put `requireMember(role?)` in front of themselves. Pages are HTML for people, not API: the
 * OpenAPI document leaves `/dashboard` out.
 */
export function dashboardRoutes(deps: DashboardDeps): Hono<DashboardEnv> {
  const app = dashboardSessionRoutes(deps);
  app.route("/", passkeyScriptRoutes());
  app.get(
    "/dashboard/invitations/:token",
    page((c) => invitationPage(c, { ...deps.stores, clock: deps.clock })),
  );
  app.get(SIGN_IN_PATH, page(signInPage));
  // Before the pages: the navigation, then the low-balance banner, in front of every page after them.
  app.use("/dashboard/*", dashboardNav());
  app.route(
    "/",
    usagePageRoutes({ ...deps.usage, askOrg: deps.askOrg, keys: deps.keys.keys, clock: deps.clock }),
  );
  app.get("/dashboard", requireMember(), page((c) => homePage(c, { ...deps, usage: deps.usage.usage })));
  app.route("/", keyRoutes({ ...deps.keys, orgs: deps.stores.orgs, clock: deps.clock }));
  app.route("/", membersArea({ ...deps, members: deps.stores.members, orgs: deps.stores.orgs }));
  for (const path of Object.values(HOTKEY_SIGN_IN_PATHS)) app.use(path, deps.signInLimits.perAddress());
  app.use(HOTKEY_SIGN_IN_PATHS.proof, deps.signInLimits.perAccount(hotkeyAccountOf()));
  for (const path of Object.values(PASSKEY_PATHS)) {
    app.use(`/dashboard${path}`, deps.signInLimits.perAddress());
  }
  app.use(
    `/dashboard${PASSKEY_PATHS.signIn}`,
    deps.signInLimits.perAccount(passkeyAccountOf(deps.stores.members)),
  );
  app.route("/", minersArea({ ...deps, ...deps.stores, ...deps.miners, sessionStore: deps.stores.sessions }));
  app.route(
    "/dashboard",
    passkeyRoutes(passkeyWiring({
      members: deps.stores.members,
      sessionStore: deps.stores.sessions,
      askMembership: deps.askMembership,
      clock: deps.clock,
      publicOrigin: deps.publicOrigin,
    })),
  );
  return app;
}
