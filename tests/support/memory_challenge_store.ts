/**
 * A `ChallengeStore` in memory, for the ceremonies' tests (the service's stores are storage
 * adapters shared by instances). `take` is atomic: it runs to completion before another call.
 */
import type { ChallengeStore, StoredChallenge } from "../../actors/ceremony/mod.ts";

export class MemoryChallengeStore implements ChallengeStore {
  readonly #byHash = new Map<string, StoredChallenge>();

  put(challenge: StoredChallenge): Promise<void> {
    this.#byHash.set(challenge.hash, { ...challenge });
    return Promise.resolve();
  }

  take(hash: string): Promise<StoredChallenge | null> {
    const challenge = this.#byHash.get(hash) ?? null;
    this.#byHash.delete(hash);
    return Promise.resolve(challenge);
  }

  /** Every challenge kept (what a storage dump would show). */
  stored(): StoredChallenge[] {
    return [...this.#byHash.values()];
  }
}
