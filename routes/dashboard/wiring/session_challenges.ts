import { hex } from "@scure/base";
import {
  CHALLENGE_TTL_MS,
  type ChallengePurpose,
  type ChallengeStore,
  type StoredChallenge,
} from "../../../actors/ceremony/mod.ts";
import { type Clock, sha256Text } from "../../../actors/kernel/mod.ts";
import type { ChallengePurpose as StoredPurpose, SessionStore } from "../../../storage/session_store.ts";

/** What the request answering a challenge expects of it: its browser, ceremony and subject. */
export interface ExpectedChallenge {
  browser: string;
  purpose: ChallengePurpose;
  subject: string;
}

const STORED_PURPOSE: Record<ChallengePurpose, StoredPurpose> = {
  passkey_registration: "passkey_register",
  passkey_sign_in: "passkey_signin",
  hotkey_sign_in: "hotkey_signin",
  hotkey_link: "hotkey_link",
};

function hashOf(text: string): string {
  return hex.encode(sha256Text(text));
}

/** The stored binding of a challenge: its browser's hash, with its subject folded in when it has one. */
function bindingOf(browserHash: string, subject: string): string {
  return subject === "" ? browserHash : hashOf(`${browserHash}\n${subject}`);
}

/**
 * The ceremonies' `ChallengeStore` on the identity core's session store, for one request: `put`
 * keeps a challenge bound to its browser and subject; `take` uses it up only when it was issued to
 * what this request `expected` (its browser, ceremony and subject), in the store's one atomic
 * step, so a challenge of another browser is left for it.
 */
export function sessionChallengeStore(
  sessions: Pick<SessionStore, "issueChallenge" | "consumeChallenge">,
  clock: Clock,
  expected: () => Promise<ExpectedChallenge>,
): ChallengeStore {
  return {
    async put(challenge: StoredChallenge): Promise<void> {
      await sessions.issueChallenge({
        challengeHash: challenge.hash,
        browserHash: bindingOf(challenge.boundTo, challenge.subject),
        purpose: STORED_PURPOSE[challenge.purpose],
        createdAtMs: challenge.expiresAtMs - CHALLENGE_TTL_MS,
        expiresAtMs: challenge.expiresAtMs,
      });
    },
    async take(hash: string): Promise<StoredChallenge | null> {
      const { browser, purpose, subject } = await expected();
      const boundTo = hashOf(browser);
      const taken = await sessions.consumeChallenge(hash, {
        browserHash: bindingOf(boundTo, subject),
        purpose: STORED_PURPOSE[purpose],
        nowMs: clock(),
      });
      return taken === null ? null : { hash, purpose, boundTo, subject, expiresAtMs: taken.expiresAtMs };
    },
  };
}
