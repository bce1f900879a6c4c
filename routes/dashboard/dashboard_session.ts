import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { SessionDesk } from "../../actors/identity/mod.ts";
import { answerHeader } from "../http/answer.ts";
import { changesState, checkCsrfToken, checkOrigin, checkReadableForm } from "./csrf.ts";
import { type DashboardEnv, DashboardVisit } from "./dashboard_visit.ts";
import { COOKIE, readCookie, stampDashboardAnswer } from "./session_cookies.ts";

/** Largest body of a dashboard request (its forms are small). */
export const DASHBOARD_MAX_BODY_BYTES = 64 * 1024;

export interface DashboardSessionOptions {
  sessions: SessionDesk;
  /** `FGW_PUBLIC_URL`: the only `Origin` a state-changing request may come from. */
  publicOrigin: string;
}

/**
 * What every dashboard request goes through: `Cache-Control: no-store` on its answer, whatever it
 * is; its session resumed from the `__Host-` cookie (an ended one's cookie dropped) into the
 * request's `DashboardVisit` (`c.get("visit")`); and, when it may change state, a same-origin
 * `Origin` (a request without one is refused) and the browser's CSRF token, both 403
 * `csrf_refused` otherwise, checked before the body is read by anything else (at most 64 KiB).
 */
export function dashboardSession(options: DashboardSessionOptions): MiddlewareHandler<DashboardEnv> {
  const limit = bodyLimit({
    maxSize: DASHBOARD_MAX_BODY_BYTES,
    onError: () => {
      throw new ServiceError("payload_too_large", "Request body is too large", {
        details: { maxBytes: DASHBOARD_MAX_BODY_BYTES },
      });
    },
  });
  return async (c, next) => {
    answerHeader(c, "Cache-Control", "no-store");
    const visit = await openVisit(c, options.sessions);
    c.set("visit", visit);
    const handle = async () => {
      if (changesState(c.req.method)) {
        checkOrigin(c, options.publicOrigin);
        await checkCsrfToken(c, visit.expectedCsrfToken());
        await checkReadableForm(c);
      }
      await next();
    };
    if (changesState(c.req.method)) await limit(c, handle);
    else await handle();
    finish(c, visit);
  };
}

/** The request's visit: its cookies and the session they name, if it still holds. */
async function openVisit(c: Context, sessions: SessionDesk): Promise<DashboardVisit> {
  const session = readCookie(c, COOKIE.session);
  const browser = readCookie(c, COOKIE.browser);
  const signedIn = session === undefined ? null : await sessions.resume(session);
  return new DashboardVisit(sessions, {
    ...(session === undefined ? {} : { session }),
    ...(browser === undefined ? {} : { browser }),
  }, signedIn);
}

/** Adds `no-store` (over a page's own `Cache-Control`) and the visit's cookies to the answer. */
function finish(c: Context, visit: DashboardVisit): void {
  const stamped = stampDashboardAnswer(c.res, visit.cookiesToSet());
  if (stamped !== c.res) {
    // Hono's setter would carry the old answer's headers over; this one has them already.
    c.res = undefined;
    c.res = stamped;
  }
}
