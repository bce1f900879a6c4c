import type { MiddlewareHandler } from "hono";
import { digestMatches, sha256Text } from "../../actors/kernel/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { answerHeader } from "../http/answer.ts";

/**
 * True when the `Authorization` header is `Bearer <token>` and the token hashes to `expected`
 * (SHA-256 of the configured token): digests have a fixed length, so the comparison leaks
 * neither where the tokens differ nor how long the configured one is.
 */
export function bearerMatches(header: string | undefined, expected: Uint8Array): boolean {
  if (header === undefined || !/^Bearer /i.test(header)) return false;
  return digestMatches(header.slice(7).trim(), expected);
}

/**
 * Guards the admin API (`/admin/v1/*`) with `Authorization: Bearer $FGW_ADMIN_TOKEN`.
 * With no token configured the admin API does not exist: every request answers 404 `not_found`.
 * A missing or wrong token answers 401 `unauthenticated` (with `WWW-Authenticate: Bearer`).
 *
 * Not `hono/bearer-auth`: it answers 400 (not 401) to another scheme, accepts only RFC 6750
 * token characters (FGW_ADMIN_TOKEN may hold any), and its HTTPException response bypasses the
 * error body of docs/conventions.md.
 */
export function adminAuth(token: string | undefined): MiddlewareHandler {
  const expected = token === undefined || token === "" ? undefined : sha256Text(token);
  return async (c, next) => {
    if (expected === undefined) throw new ServiceError("not_found", "No such route");
    if (!bearerMatches(c.req.header("authorization"), expected)) {
      answerHeader(c, "WWW-Authenticate", 'Bearer realm="admin"');
      throw new ServiceError("unauthenticated", "Missing or invalid admin token");
    }
    await next();
  };
}
