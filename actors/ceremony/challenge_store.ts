/** What a challenge was issued for: a challenge answers only the ceremony it was made for. */
export type ChallengePurpose = "passkey_registration" | "passkey_sign_in" | "hotkey_sign_in" | "hotkey_link";

/** A challenge as stored: hashes only, never the challenge or the browser session id in clear. */
export interface StoredChallenge {
  /** Lowercase hex SHA-256 of the challenge (the lookup key). */
  hash: string;
  purpose: ChallengePurpose;
  /** Lowercase hex SHA-256 of the browser session it was issued to. */
  boundTo: string;
  /**
   * What it is for beyond its purpose: the user handle a passkey is registered for, the
   * organisation a hotkey is linked to; empty for a sign-in.
   */
  subject: string;
  /** Unix epoch milliseconds after which it answers nothing (issued + 5 min). */
  expiresAtMs: number;
}

/**
 * Where issued challenges wait for their answer (the port a storage adapter implements, shared by
 * every instance). A challenge is single-use: `take` removes it.
 */
export interface ChallengeStore {
  /** Keeps `challenge` until it is taken; one past `expiresAtMs` may be purged at any time. */
  put(challenge: StoredChallenge): Promise<void>;
  /**
   * Removes the challenge whose `hash` is given and answers it, as one atomic step: of two
   * concurrent takes of one hash, one gets the challenge and the other null. Null when there is
   * none. An expired challenge not yet purged may be answered: the caller checks `expiresAtMs`.
   */
  take(hash: string): Promise<StoredChallenge | null>;
}
