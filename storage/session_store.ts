import type { MemberRecord } from "./member_store.ts";
import type { MinerRegistration } from "./org_store.ts";

/** How a session was signed in: a passkey, or a miner hotkey bound to the member. */
export type SignInVia = { kind: "passkey" } | { kind: "hotkey"; hotkey: string };

/** A dashboard session. Its id is public (cookie prefix, logs); only a hash of its secret is stored. */
export interface SessionRecord {
  id: string;
  /** Lowercase hex SHA-256 of the session's secret. */
  secretHash: string;
  memberId: string;
  orgId: string;
  via: SignInVia;
  createdAtMs: number;
  lastSeenAtMs: number;
  /** When it ends unless seen again: the earlier of its idle and absolute ends. */
  expiresAtMs: number;
}

/**
 * A session with what decides whether it still holds, read together: its member (null when
 * removed) and, for a hotkey sign-in, the hotkey's registration (null when unlinked).
 */
export interface SessionView {
  session: SessionRecord;
  member: MemberRecord | null;
  hotkey: MinerRegistration | null;
}

/** What a challenge may be used for; a challenge of one ceremony is refused by the others. */
export type ChallengePurpose = "passkey_register" | "passkey_signin" | "hotkey_signin" | "hotkey_link";

/** A server-issued challenge, stored under the hash of its value. */
export interface ChallengeRecord {
  /** Lowercase hex SHA-256 of the challenge. */
  challengeHash: string;
  /** Lowercase hex SHA-256 of the browser's pre-session id (or of its session id when signed in). */
  browserHash: string;
  purpose: ChallengePurpose;
  createdAtMs: number;
  expiresAtMs: number;
}

/**
 * Port for dashboard sessions and sign-in challenges, shared by every instance. Ending sessions
 * deletes them, so a sign-out, a member's removal or an unlinked hotkey takes effect on every
 * instance at its next request.
 */
export interface SessionStore {
  create(session: SessionRecord): Promise<void>;
  /** The session with its member and hotkey registration, or null when there is no such session. */
  find(sessionId: string): Promise<SessionView | null>;
  /**
   * Moves `lastSeenAtMs` and `expiresAtMs` forward, only while the stored `lastSeenAtMs` is still
   * `seenAtMs` (another instance touched it first: false, nothing written) and the session exists.
   */
  touch(
    sessionId: string,
    options: { seenAtMs: number; lastSeenAtMs: number; expiresAtMs: number },
  ): Promise<boolean>;
  /** Ends one session; false when there was none. */
  end(sessionId: string): Promise<boolean>;
  /** Ends every session of a member; answers how many. */
  endForMember(memberId: string): Promise<number>;
  /** Ends every session signed in with `hotkey`; answers how many. */
  endForHotkey(hotkey: string): Promise<number>;

  /** Stores a new challenge. */
  issueChallenge(challenge: ChallengeRecord): Promise<void>;
  /**
   * Uses up the challenge in one atomic step and answers it, when it exists, has `purpose`, is
   * bound to `browserHash` and has not expired at `nowMs`; otherwise null, and a challenge that
   * exists is left as it is (another browser cannot spend it).
   */
  consumeChallenge(
    challengeHash: string,
    options: { browserHash: string; purpose: ChallengePurpose; nowMs: number },
  ): Promise<ChallengeRecord | null>;

  /** Deletes sessions and challenges expired at `nowMs`; answers how many of each. */
  purgeExpired(nowMs: number): Promise<{ sessions: number; challenges: number }>;
}
