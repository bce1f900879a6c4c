import { timingSafeEqual } from "node:crypto";
import { sha256 } from "@noble/hashes/sha2.js";

const encoder = new TextEncoder();

/** SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Text(text: string): Uint8Array {
  return sha256(encoder.encode(text));
}

/**
 * True when `a` and `b` hold the same bytes, compared in time that does not depend on where
 * they differ (lengths are not secret: unequal lengths answer false at once). Compare digests or
 * MACs with this, never secrets of a caller-chosen length.
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** True when `text` hashes (SHA-256) to `digest`, compared in constant time. */
export function digestMatches(text: string, digest: Uint8Array): boolean {
  return sameBytes(sha256Text(text), digest);
}
