import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/** Who signs: validators on the validator loop, miners on agent upload (docs/signatures.md). */
export type SignatureRole = "validator" | "miner";

/**
 * The domain separator, first line of every canonical message: a signature made for one
 * protocol never verifies on the other (nor on any customer route, which takes no signatures).
 */
export const SIGNATURE_DOMAINS = {
  validator: "forecasting-gateway/validator/v1",
  miner: "forecasting-gateway/miner/v1",
} as const satisfies Record<SignatureRole, string>;

export type SignatureDomain = (typeof SIGNATURE_DOMAINS)[SignatureRole];

/** The parts of a request that the canonical message covers, as they were sent. */
export interface CanonicalRequest {
  /** HTTP method; upper-cased in the message. */
  method: string;
  /** Path plus `?` and the raw query string exactly as sent (see `requestTarget`). */
  target: string;
  /** The timestamp header value, unchanged (Unix epoch milliseconds). */
  timestamp: string;
  /** The nonce header value, unchanged. */
  nonce: string;
  /** The raw body bytes (a string is taken as its UTF-8 bytes); empty when there is none. */
  body: Uint8Array | string;
  /** The `x-miner-hotkey` header value, or null when the request has none. */
  minerHotkey: string | null;
}

/**
 * The canonical message (docs/signatures.md, "Canonical message"): seven lines joined by `\n`, no trailing
 * newline — domain, METHOD, request target, timestamp, nonce, lowercase hex SHA-256 of the body, miner
 * hotkey (empty when none, so a message without one ends in `\n`).
 */
export function canonicalMessage(domain: SignatureDomain, request: CanonicalRequest): string {
  return [
    domain,
    request.method.toUpperCase(),
    request.target,
    request.timestamp,
    request.nonce,
    bodySha256Hex(request.body),
    request.minerHotkey ?? "",
  ].join("\n");
}

/** Lowercase hex SHA-256 of the body bytes (of the empty string when there is no body). */
export function bodySha256Hex(body: Uint8Array | string): string {
  return bytesToHex(sha256(typeof body === "string" ? utf8ToBytes(body) : body));
}

const BYTES_OPEN = utf8ToBytes("<Bytes>");
const BYTES_CLOSE = utf8ToBytes("</Bytes>");

/** `<Bytes>` ‖ message ‖ `</Bytes>`: what polkadot-js extensions sign when asked to sign raw bytes. */
export function wrapBytes(message: Uint8Array): Uint8Array {
  const wrapped = new Uint8Array(BYTES_OPEN.length + message.length + BYTES_CLOSE.length);
  wrapped.set(BYTES_OPEN, 0);
  wrapped.set(message, BYTES_OPEN.length);
  wrapped.set(BYTES_CLOSE, BYTES_OPEN.length + message.length);
  return wrapped;
}

/**
 * The request target of a URL as sent: the path plus `?` and the raw query when the URL has a
 * `?`, without scheme, authority or fragment. Works on the raw string (no re-encoding), so what
 * the client put on the wire is what the message covers. A target that starts with `/` is
 * returned without its fragment.
 */
export function requestTarget(url: string): string {
  const hash = url.indexOf("#");
  const withoutFragment = hash === -1 ? url : url.slice(0, hash);
  if (withoutFragment.startsWith("/")) return withoutFragment;
  const scheme = withoutFragment.indexOf("://");
  if (scheme === -1) throw new TypeError(`Invalid URL: expected an absolute URL or a path, got ${url}`);
  const authorityStart = scheme + 3;
  const slash = withoutFragment.indexOf("/", authorityStart);
  const question = withoutFragment.indexOf("?", authorityStart);
  const starts = [slash, question].filter((at) => at !== -1);
  if (starts.length === 0) return "/";
  const start = Math.min(...starts);
  const target = withoutFragment.slice(start);
  return target.startsWith("?") ? `/${target}` : target;
}
