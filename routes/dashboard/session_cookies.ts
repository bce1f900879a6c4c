import type { Context } from "hono";
import { generateCookie, getCookie } from "hono/cookie";
import { SESSION_ABSOLUTE_MS } from "../../actors/identity/mod.ts";

/**
 * The dashboard's two cookies, both `__Host-` (Secure, Path=/, no Domain: only this origin may set
 * or read them), HttpOnly and SameSite=Lax. Chromium keeps `Secure` cookies of
 * `http://localhost` too, so development works without TLS.
 */
export const COOKIE = {
  /** `<sessionId>.<secret>` of the signed-in session. */
  session: "fgw_session",
  /** The browser's pre-session id: binds sign-in challenges and the CSRF token of signed-out forms. */
  browser: "fgw_browser",
} as const;

/** How long the browser keeps either cookie: a session's absolute lifetime. */
const MAX_AGE_SECONDS = SESSION_ABSOLUTE_MS / 1000;

/** The value of one of the dashboard's cookies, when the request carries it. */
export function readCookie(c: Context, name: string): string | undefined {
  const value = getCookie(c, name, "host");
  return value === undefined || value === "" ? undefined : value;
}

/** The `Set-Cookie` value that sets `name` (`__Host-` prefixed) to `value`. */
export function setCookieValue(name: string, value: string): string {
  return generateCookie(name, value, {
    prefix: "host",
    httpOnly: true,
    sameSite: "Lax",
    maxAge: MAX_AGE_SECONDS,
  });
}

/** The `Set-Cookie` value that makes the browser drop `name`. */
export function clearCookieValue(name: string): string {
  return generateCookie(name, "", { prefix: "host", httpOnly: true, sameSite: "Lax", maxAge: 0 });
}

/**
 * `response` with `Cache-Control: no-store` (over any other) and each `Set-Cookie` value appended;
 * a copy when its headers cannot change.
 */
export function stampDashboardAnswer(response: Response, cookies: readonly string[]): Response {
  const apply = (target: Response) => {
    target.headers.set("Cache-Control", "no-store");
    for (const cookie of cookies) target.headers.append("Set-Cookie", cookie);
    return target;
  };
  try {
    return apply(response);
  } catch {
    return apply(new Response(response.body, response));
  }
}
