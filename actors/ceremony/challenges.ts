import { base64urlnopad, hex } from "@scure/base";
import { sameText, sha256Text } from "../kernel/mod.ts";
import { ceremonyRefusal } from "./ceremony_refusal.ts";
import type { ChallengePurpose, ChallengeStore } from "./challenge_store.ts";

/** How long a challenge answers: 5 minutes from its issue. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/** Random bytes in a challenge: 32, sent as 43 characters of base64url without padding. */
const CHALLENGE_BYTES = 32;
const CHALLENGE_TEXT = /^[A-Za-z0-9_-]{43}$/;

/** True when `text` is shaped like a challenge this service issues. */
export function isChallengeText(text: string): boolean {
  return CHALLENGE_TEXT.test(text);
}

/** What a challenge is issued for and checked against. */
export interface ChallengeScope {
  purpose: ChallengePurpose;
  /** The browser session asking (its id: hashed before it is stored). */
  browser: string;
  /** See `StoredChallenge.subject`; empty by default. */
  subject?: string;
  /** The server's time (injected clock). */
  nowMs: number;
}

function hashOf(text: string): string {
  return hex.encode(sha256Text(text));
}

/** A new single-use challenge for `scope`, stored hashed; answers it in clear (base64url). */
export async function issueChallenge(store: ChallengeStore, scope: ChallengeScope): Promise<string> {
  const challenge = base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(CHALLENGE_BYTES)));
  await store.put({
    hash: hashOf(challenge),
    purpose: scope.purpose,
    boundTo: hashOf(scope.browser),
    subject: scope.subject ?? "",
    expiresAtMs: scope.nowMs + CHALLENGE_TTL_MS,
  });
  return challenge;
}

/**
 * Uses up `challenge`: taken from the store (so it never answers twice, whatever follows), then
 * checked against `scope` — its purpose, browser session and subject, and not past its 5 minutes
 * (one issued at t answers until t + 5 min inclusive). Throws the 401 `challenge` refusal otherwise.
 */
export async function redeemChallenge(
  store: ChallengeStore,
  challenge: string,
  scope: ChallengeScope,
): Promise<void> {
  if (!isChallengeText(challenge)) throw ceremonyRefusal("challenge");
  const stored = await store.take(hashOf(challenge));
  const answers = stored !== null && stored.purpose === scope.purpose &&
    sameText(stored.boundTo, hashOf(scope.browser)) && stored.subject === (scope.subject ?? "") &&
    scope.nowMs <= stored.expiresAtMs;
  if (!answers) throw ceremonyRefusal("challenge");
}
