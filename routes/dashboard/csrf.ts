import type { Context } from "hono";
import { createHmac } from "node:crypto";
import { base64urlnopad } from "@scure/base";
import { sameText, ServiceError } from "../../actors/kernel/mod.ts";

/** The form field and the header a state-changing dashboard request carries its CSRF token in. */
export const CSRF_FIELD = "_csrf";
export const CSRF_HEADER = "X-CSRF-Token";

/** Methods that change nothing: no `Origin` or CSRF token needed. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The CSRF token of a browser: an HMAC of its session's secret (or, signed out, of its pre-session
 * id), so it changes at every sign-in, needs nothing stored, and cannot be made without the
 * HttpOnly cookie it is bound to.
 */
export function csrfTokenOf(bindingSecret: string): string {
  return base64urlnopad.encode(createHmac("sha256", bindingSecret).update("fgw-dashboard-csrf/v1").digest());
}

/** True for a request that may change state (any method but GET, HEAD and OPTIONS). */
export function changesState(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/**
 * Refuses a state-changing request whose `Origin` is missing or not the dashboard's (403
 * `csrf_refused`, `details.reason` `origin_missing` or `origin_foreign`).
 */
export function checkOrigin(c: Context, publicOrigin: string): void {
  const origin = c.req.header("origin");
  if (origin === undefined || origin === "") throw csrfRefused("origin_missing", "The request has no Origin");
  if (origin !== publicOrigin) throw csrfRefused("origin_foreign", "The request comes from another origin");
}

/**
 * Refuses a state-changing request without the browser's CSRF token (`expected`; null when the
 * browser has neither a session nor a pre-session id), in the `X-CSRF-Token` header or the `_csrf`
 * field of a form body (403 `csrf_refused`, `token_missing` or `token_wrong`).
 */
export async function checkCsrfToken(c: Context, expected: string | null): Promise<void> {
  const sent = c.req.header(CSRF_HEADER) ?? await formToken(c);
  if (sent === undefined || sent === "") throw csrfRefused("token_missing", "The request has no CSRF token");
  if (expected === null || !sameText(sent, expected)) {
    throw csrfRefused("token_wrong", "The CSRF token is not this session's: reload the page and try again");
  }
}

/** The `_csrf` field of a form body (urlencoded or multipart), read once and kept for the handler. */
async function formToken(c: Context): Promise<string | undefined> {
  const type = c.req.header("content-type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return undefined;
  const body = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
  const value = body[CSRF_FIELD];
  return typeof value === "string" ? value : undefined;
}

/**
 * Refuses a form body that cannot be parsed (a multipart body without its boundary, say) with
 * 400 `invalid_request` before any handler reads it: Hono keeps the parse, so a handler would
 * otherwise meet the same failure as a 500.
 */
export async function checkReadableForm(c: Context): Promise<void> {
  const type = c.req.header("content-type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return;
  const parsed = await c.req.parseBody().then(() => true, () => false);
  if (!parsed) {
    throw new ServiceError("invalid_request", "The form's body cannot be read", {
      details: { fields: [{ field: "body", problem: `not a well-formed ${type.split(";")[0]} body` }] },
    });
  }
}

function csrfRefused(reason: string, message: string): ServiceError {
  return new ServiceError("csrf_refused", message, { details: { reason } });
}
