import type { Context } from "hono";
import { type ErrorCode, ServiceError } from "../../actors/kernel/mod.ts";
import {
  type AdmittedSignature,
  requestTarget,
  type SignatureGuard,
  type SignaturePolicy,
  type SignedCaller,
} from "../../actors/validators/mod.ts";
import type { AppEnv } from "../http/app_env.ts";
import type { SignatureAccess } from "./key_or_signature.ts";

export type { SignatureAccess };

/** Context of a route behind a signature: `c.get("signed")` is the verified caller. */
export type SignedEnv = { Bindings: AppEnv["Bindings"]; Variables: { signed: SignedCaller } };

const ADMITTED = "signatureAdmitted";
const SIGNED = "signed";

/** The codes every signature route may answer with, before its own. */
const SIGNATURE_ERRORS: readonly ErrorCode[] = [
  "wrong_auth_scheme",
  "unauthenticated",
  "invalid_request",
  "timestamp_out_of_window",
  "metagraph_unavailable",
  "hotkey_not_in_metagraph",
  "invalid_signature",
  "nonce_reused",
];

/**
 * The signature checks of a route that takes a signature alone (`access: { signature }`), by
 * `policy`, as a `SignatureAccess` whose halves run around the body gate: an `Authorization`
 * header → 403 `wrong_auth_scheme` (signature routes take no API key), then `SignatureGuard` steps
 * 1–5 before the body, 6–9 after it (over the raw body bytes the gate kept). Sets `c.get("signed")`. Every failure, a storage error included, refuses
 * the request: nothing after this middleware runs unless every step passed.
 */
export function signatureAccess(guard: SignatureGuard, policy: SignaturePolicy): SignatureAccess {
  const errors: ErrorCode[] = [...SIGNATURE_ERRORS];
  if (policy.role === "validator") errors.push("validator_permit_required", "rate_limited");
  if (policy.role === "miner" || policy.minerHotkey === "required") errors.push("miner_not_registered");
  return {
    role: policy.role,
    errors,
    beforeBody: async (c, next) => {
      if (c.req.header("authorization") !== undefined) {
        throw new ServiceError("wrong_auth_scheme", "This route takes a request signature, not an API key");
      }
      c.set(ADMITTED, guard.admit((name) => c.req.header(name), policy));
      await next();
    },
    afterBody: async (c, next) => {
      const admitted = c.get(ADMITTED) as AdmittedSignature | undefined;
      if (!admitted) throw new Error("signature afterBody ran without beforeBody");
      const body = new Uint8Array(await c.req.arrayBuffer());
      const parts = { method: c.req.method, target: requestTarget(c.req.url), body };
      c.set(SIGNED, await guard.complete(admitted, parts));
      await next();
    },
  };
}

/** The verified caller of a request that passed `signatureAccess`. */
export function signedCallerOf(c: Context): SignedCaller {
  const signed = c.get(SIGNED) as SignedCaller | undefined;
  if (!signed) throw new Error("No verified signature on this request");
  return signed;
}
