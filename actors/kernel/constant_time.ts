import { createHash } from "node:crypto";

/** SHA-256 of the UTF-8 bytes of `text` (the runtime's native hash: it runs on every API-key request). */
export function sha256Text(text: string): Uint8Array {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * True when `a` and `b` hold the same bytes, compared in time that does not depend on where
 * they differ (lengths are not secret: unequal lengths answer false at once). Compare digests or
 * MACs with this, never secrets of a caller-chosen length.
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  // A plain loop, not node:crypto's timingSafeEqual: for a MAC's 16 bytes the call into the
  // runtime cost about 1.3 µs, more than the whole comparison (it runs on every cursor).
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/** True when `text` hashes (SHA-256) to `digest`, compared in constant time. */
export function digestMatches(text: string, digest: Uint8Array): boolean {
  return sameBytes(sha256Text(text), digest);
}

/**
 * True when the strings are equal, in time that does not depend on where they differ (unequal
 * lengths answer false at once: compare only strings whose length is public, such as a secret of
 * a fixed format).
 */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
