import type { Context, MiddlewareHandler } from "hono";
import { type ErrorCode, ServiceError } from "../../actors/kernel/mod.ts";
import { SIGNATURE_HEADERS, type SignatureRole } from "../../actors/validators/mod.ts";
import { hasSignatureHeaders } from "./api_key_auth.ts";

/**
 * A request-signature scheme (docs/signatures.md) that a route takes as an alternative to an API key. Its
 * checks are split around the JSON body gate: what needs no body runs first (headers, window,
 * metagraph), what covers the body runs once the gate has read it (signature, nonce, registration).
 */
export interface SignatureAccess {
  role: SignatureRole;
  /** Error codes the checks answer with (for the OpenAPI document). */
  errors: readonly ErrorCode[];
  beforeBody: MiddlewareHandler;
  afterBody: MiddlewareHandler;
}

/** The two middleware of a route that takes an API key or a signature: before and after the body gate. */
export interface KeyOrSignature {
  before: MiddlewareHandler;
  after: MiddlewareHandler;
}

const SCHEME = "authScheme";

/** True when the request carries any header of `role`'s signature scheme. */
export function hasRoleHeaders(c: Context, role: SignatureRole): boolean {
  return Object.values(SIGNATURE_HEADERS[role]).some((name) => c.req.header(name) !== undefined);
}

/**
 * Picks the scheme by the headers sent: a signature header of another role → 403
 * `wrong_auth_scheme` (naming this route's headers); `Authorization` and no signature header → the
 * API key (`keyAuth`);
 * the role's headers and no `Authorization` → the signature; both → 403 `wrong_auth_scheme` (which
 * one should count?); neither → `keyAuth`, which answers 401 asking for a key.
 */
export function keyOrSignature(keyAuth: MiddlewareHandler, signature: SignatureAccess): KeyOrSignature {
  return {
    before: async (c, next) => {
      const refuse = (message: string) =>
        new ServiceError("wrong_auth_scheme", message, {
          details: { signatureHeaders: Object.values(SIGNATURE_HEADERS[signature.role]) },
        });
      const signed = hasRoleHeaders(c, signature.role);
      if (signed && c.req.header("authorization") !== undefined) {
        throw refuse("Send an API key or request signature headers, not both");
      }
      if (!signed && hasSignatureHeaders(c)) {
        throw refuse(
          `This route takes an API key or a ${signature.role} request signature, not another role's signature`,
        );
      }
      if (!signed) return await keyAuth(c, next);
      c.set(SCHEME, "signature");
      return await signature.beforeBody(c, next);
    },
    after: async (c, next) => {
      if (c.get(SCHEME) === "signature") return await signature.afterBody(c, next);
      await next();
    },
  };
}
