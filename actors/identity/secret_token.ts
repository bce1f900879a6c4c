import { base64urlnopad, hex } from "@scure/base";
import { digestMatches, sha256Text } from "../kernel/mod.ts";

/**
 * The bearer values of the dashboard (an invitation link's token, a session cookie):
 * `<id>.<secret>`, the id 12 random bytes in lowercase hex (public: it names the record), the
 * secret 32 random bytes in base64url. Only the SHA-256 of the secret is stored, and a presented
 * secret is compared with it in constant time.
 */
export interface SecretToken {
  id: string;
  secret: string;
}

const TOKEN = /^([0-9a-f]{24})\.([A-Za-z0-9_-]{43})$/;

/** A new id (12 CSPRNG bytes, lowercase hex). */
export function newTokenId(): string {
  return hex.encode(crypto.getRandomValues(new Uint8Array(12)));
}

/** A new token: a fresh id and a 32-byte secret. */
export function newSecretToken(): SecretToken {
  return { id: newTokenId(), secret: base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(32))) };
}

/** The token as it is handed out: `<id>.<secret>`. */
export function formatSecretToken(token: SecretToken): string {
  return `${token.id}.${token.secret}`;
}

/** The id and secret of a presented token; null when it is not shaped like one. */
export function parseSecretToken(text: string): SecretToken | null {
  const match = TOKEN.exec(text);
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

/** What is stored instead of a secret (or a challenge): lowercase hex SHA-256. */
export function hashText(secret: string): string {
  return hex.encode(sha256Text(secret));
}

/** True when `secret` hashes to `storedHash` (lowercase hex), compared in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  let stored: Uint8Array;
  try {
    stored = hex.decode(storedHash);
  } catch {
    return false;
  }
  return digestMatches(secret, stored);
}
