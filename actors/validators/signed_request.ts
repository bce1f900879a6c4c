import { utf8ToBytes } from "@noble/hashes/utils.js";
import { ServiceError } from "../kernel/mod.ts";
import { canonicalMessage, SIGNATURE_DOMAINS, type SignatureRole, wrapBytes } from "./canonical_message.ts";
import { type HeaderSource, parseSignatureHeaders, type SignatureHeaders } from "./signature_headers.ts";
import type { Sr25519Verify } from "./sr25519.ts";

/** What a request contributes to its canonical message besides the signature headers. */
export interface SignedRequestParts {
  method: string;
  /** Path plus `?` and the raw query exactly as sent (`requestTarget(request.url)`). */
  target: string;
  /** The raw body bytes; empty when there is none. */
  body: Uint8Array | string;
  headers: HeaderSource;
}

export interface WindowOptions {
  /** The server's time (injected clock). */
  nowMs: number;
  /** Allowed |now − timestamp|, inclusive (`FGW_SIG_WINDOW_MS`). */
  windowMs: number;
}

export interface VerifySignedRequestOptions extends WindowOptions {
  role: SignatureRole;
  verify: Sr25519Verify;
}

/** A request whose signature headers are well formed, in time and signed by `hotkey`. */
export interface VerifiedSignature extends SignatureHeaders {
  /** True when the signer signed the `<Bytes>…</Bytes>`-wrapped message (polkadot-js extensions). */
  wrapped: boolean;
}

/**
 * Step 2 of docs/signatures.md's order: |now − timestamp| ≤ window, else 401 `timestamp_out_of_window`
 * (details give the server time and the window, so a client can see its skew).
 */
export function checkWindow(headers: Pick<SignatureHeaders, "timestampMs">, options: WindowOptions): void {
  if (Math.abs(options.nowMs - headers.timestampMs) <= options.windowMs) return;
  throw new ServiceError(
    "timestamp_out_of_window",
    `Request timestamp is outside the allowed window of ${options.windowMs} ms`,
    {
      details: { serverTimeMs: options.nowMs, timestampMs: headers.timestampMs, windowMs: options.windowMs },
    },
  );
}

/**
 * The signature step (6) of docs/signatures.md's order: rebuilds the canonical message of `headers.role`'s
 * domain and verifies the signature against it, then against its `<Bytes>`-wrapped form; neither → 401
 * `invalid_signature`. Returns which form verified.
 */
export function verifySignature(
  headers: SignatureHeaders,
  request: Omit<SignedRequestParts, "headers">,
  options: { verify: Sr25519Verify },
): { wrapped: boolean } {
  const form = signedForm(headers.signature, signedMessage(headers, request), {
    publicKey: headers.publicKey,
    verify: options.verify,
  });
  if (form === null) throw invalidSignature();
  return form;
}

/** Whom a signature is checked against, and by what. */
export interface SignedFormOptions<V> {
  /** The signer's 32-byte sr25519 public key. */
  publicKey: Uint8Array;
  verify: V;
}

/**
 * Which form of `message` `signature` signs: the raw bytes (`wrapped: false`), else their
 * `<Bytes>…</Bytes>`-wrapped form (`wrapped: true`: what polkadot-js browser extensions sign for raw
 * bytes); null when neither verifies.
 */
export function signedForm(
  signature: Uint8Array,
  message: Uint8Array,
  options: SignedFormOptions<Sr25519Verify>,
): { wrapped: boolean } | null {
  if (options.verify(signature, message, options.publicKey)) return { wrapped: false };
  if (options.verify(signature, wrapBytes(message), options.publicKey)) return { wrapped: true };
  return null;
}

/** `signedForm` with a verification that may answer later (`VerifyPool.verify`); the same answers. */
export async function checkSignedForm(
  signature: Uint8Array,
  message: Uint8Array,
  options: SignedFormOptions<SignatureCheck>,
): Promise<{ wrapped: boolean } | null> {
  if (await options.verify(signature, message, options.publicKey)) return { wrapped: false };
  if (await options.verify(signature, wrapBytes(message), options.publicKey)) return { wrapped: true };
  return null;
}

/** A verification that answers now or later (`VerifyPool.verify` answers from a worker thread). */
export type SignatureCheck = (
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
) => boolean | Promise<boolean>;

/** `verifySignature` with a verification that may answer later; the same checks and answers. */
export async function checkSignature(
  headers: SignatureHeaders,
  request: Omit<SignedRequestParts, "headers">,
  options: { verify: SignatureCheck },
): Promise<{ wrapped: boolean }> {
  const form = await checkSignedForm(headers.signature, signedMessage(headers, request), {
    publicKey: headers.publicKey,
    verify: options.verify,
  });
  if (form === null) throw invalidSignature();
  return form;
}

/** The canonical message's bytes, as the signer signed them (unwrapped). */
function signedMessage(headers: SignatureHeaders, request: Omit<SignedRequestParts, "headers">): Uint8Array {
  return utf8ToBytes(canonicalMessage(SIGNATURE_DOMAINS[headers.role], {
    method: request.method,
    target: request.target,
    timestamp: headers.timestamp,
    nonce: headers.nonce,
    body: request.body,
    minerHotkey: headers.minerHotkey,
  }));
}

function invalidSignature(): ServiceError {
  return new ServiceError("invalid_signature", "Request signature does not verify for the hotkey");
}

/**
 * The request-local checks of docs/signatures.md in their order: headers well formed
 * (`parseSignatureHeaders`) → timestamp window (`checkWindow`) → signature (`verifySignature`).
 * The signature-auth middleware calls the three steps itself to put the metagraph checks (fresh →
 * hotkey in metagraph → permit and stake) between the window and the signature, and the nonce,
 * per-hotkey rate and miner registration after it; this function is the whole chain for callers
 * with no metagraph step (tests, the signing client's self-check).
 */
export function verifySignedRequest(
  parts: SignedRequestParts,
  options: VerifySignedRequestOptions,
): VerifiedSignature {
  const headers = parseSignatureHeaders(parts.headers, options.role);
  checkWindow(headers, options);
  const { wrapped } = verifySignature(headers, parts, options);
  return { ...headers, wrapped };
}
