import { base64urlnopad, hex } from "@scure/base";
import { sha256Text } from "../kernel/mod.ts";

/** Every key starts with this; the key id follows, then `_`, then the secret. */
export const API_KEY_PREFIX = "fgw_";
/** Random bytes in a secret (32: docs/api_keys.md, "Keys"). */
export const SECRET_BYTES = 32;

const KEY_ID = /^[0-9a-f]{24}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** True when `text` is shaped like a key id (24 lowercase hex characters); anything else names no key. */
export function isKeyId(text: string): boolean {
  return KEY_ID.test(text);
}

/** A new key id: 12 CSPRNG bytes, lowercase hex (never contains `_`). */
export function newKeyId(): string {
  return hex.encode(crypto.getRandomValues(new Uint8Array(12)));
}

/** A new secret: 32 CSPRNG bytes, base64url without padding (43 characters). */
export function newSecret(): string {
  return base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** The full key as the customer sends it: `fgw_<keyId>_<secret>`. */
export function formatApiKey(keyId: string, secret: string): string {
  return `${API_KEY_PREFIX}${keyId}_${secret}`;
}

/** Splits a presented key into its id and secret; null when it is not shaped like one of ours. */
export function parseApiKey(token: string): { keyId: string; secret: string } | null {
  if (!token.startsWith(API_KEY_PREFIX)) return null;
  const keyId = token.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + 24);
  const secret = token.slice(API_KEY_PREFIX.length + 25);
  if (token[API_KEY_PREFIX.length + 24] !== "_" || !KEY_ID.test(keyId) || !SECRET.test(secret)) return null;
  return { keyId, secret };
}

/** What is stored instead of the secret: lowercase hex SHA-256 (fine for a 256-bit random secret). */
export function hashSecret(secret: string): string {
  return hex.encode(sha256Text(secret));
}

/** The stored hash as bytes (for `digestMatches` of constant_time.ts); empty when it is not hex. */
export function hashBytes(storedHash: string): Uint8Array {
  try {
    return hex.decode(storedHash);
  } catch {
    return new Uint8Array();
  }
}
