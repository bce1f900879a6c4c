import type { Context } from "hono";
import { type ErrorCode, ServiceError } from "../../actors/kernel/mod.ts";
import {
  type AdmittedSignature,
  type PendingUse,
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
 * 1–5 before the body, 6–9 after it (over the raw body bytes the gate kept). Sets
 * `c.get("signed")`. Every failure, a storage error included, refuses the request: nothing after
 * this middleware runs unless every step passed — except, with
 * `nonce: "with_change"`, steps 7–8, which the route makes with its change (`SignedCaller.use`). A
 * request that ends before its route handed the use to a store (a bad body or query, an unknown
 * id) has it made here, after the route answered: a refused use replaces that answer with its own
 * (`nonce_reused`, `rate_limited`), as if it had come first, which is the order of docs/signatures.md.
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
      const signed = await guard.complete(admitted, parts);
      c.set(SIGNED, signed);
      await next();
      if (signed.use && !signed.use.taken) await useAfterAnswer(c, guard, signed.use);
    },
  };
}

/** Makes a use the route never handed to a store; a refusal drops the answer's own `Retry-After`. */
async function useAfterAnswer(c: Context, guard: SignatureGuard, use: PendingUse): Promise<void> {
  try {
    await guard.useAlone(use);
  } catch (error) {
    c.header("Retry-After", undefined);
    throw error;
  }
}

/** The verified caller of a request that passed `signatureAccess`. */
export function signedCallerOf(c: Context): SignedCaller {
  const signed = signedCallerIfAny(c);
  if (!signed) throw new Error("No verified signature on this request");
  return signed;
}

/**
 * The verified caller of a request that passed `signatureAccess`, or undefined for a request a
 * route that also takes an API key let in by its key (`keyOrSignature`).
 */
export function signedCallerIfAny(c: Context): SignedCaller | undefined {
  return c.get(SIGNED) as SignedCaller | undefined;
}
