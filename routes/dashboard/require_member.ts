import type { Context, MiddlewareHandler } from "hono";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { SignedIn } from "../../actors/identity/mod.ts";
import type { MemberRole } from "../../storage/member_store.ts";
import type { SignInVia } from "../../storage/session_store.ts";
import type { DashboardEnv } from "./dashboard_visit.ts";
import { errorPage } from "../pages/kit/error_page.tsx";

/** Where a signed-out browser asking for a dashboard page is sent. */
export const SIGN_IN_PATH = "/dashboard/sign-in";

/**
 * Lets a request through only when signed in, and, with `role` "owner", only as an owner: a
 * signed-out page request (a GET asking for HTML) is sent to the sign-in page (303), any other
 * request answers 401 `unauthenticated`; a viewer asking an owner's action 403 `insufficient_role`.
 */
export function requireMember(role?: MemberRole): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    const signedIn = c.get("visit").signedIn;
    if (!signedIn) {
      if (c.req.method === "GET" && (c.req.header("accept") ?? "").includes("text/html")) {
        return c.redirect(SIGN_IN_PATH, 303);
      }
      throw new ServiceError("unauthenticated", "Sign in to the dashboard first");
    }
    if (role === "owner" && signedIn.member.role !== "owner") {
      const refusal = new ServiceError("insufficient_role", "Only an owner of the organisation may do this", {
        details: { role: signedIn.member.role, requiredRole: "owner" },
      });
      // A page asked for is refused as a page (JSON when the client asks for JSON).
      if (c.req.method === "GET") return await errorPage(c, refusal);
      throw refusal;
    }
    await next();
  };
}

/** The signed-in member of a request behind `requireMember` (it throws 401 when there is none). */
export function signedInOf(c: Context<DashboardEnv>): SignedIn {
  const signedIn = c.get("visit").signedIn;
  if (!signedIn) throw new ServiceError("unauthenticated", "Sign in to the dashboard first");
  return signedIn;
}

/**
 * Refuses a resource of another organisation as not found (404 `not_found`): a member never learns
 * whether another organisation's key, member or hotkey exists.
 */
export function requireSameOrg(c: Context<DashboardEnv>, resourceOrgId: string | null | undefined): void {
  if (resourceOrgId !== signedInOf(c).member.orgId) throw new ServiceError("not_found", "Not found");
}

/**
 * Signs the browser in as `memberId` (the sign-in flows call it once a passkey or a hotkey
 * signature is verified): a new session id, the browser's previous session ended, the cookie set.
 */
export function startSession(c: Context<DashboardEnv>, memberId: string, via: SignInVia): Promise<SignedIn> {
  return c.get("visit").startSession(memberId, via);
}
