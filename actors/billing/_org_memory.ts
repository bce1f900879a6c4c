/**
 * What an OrgActor remembers of its account between messages, so that a batch of money messages
 * can be decided without reading storage first (_org_batch.ts). A hint only: every change it
 * decides is committed with the store's own conditions (the hold still there, the new hold fits,
 * its id unused), so a memory that another instance made stale costs a refused commit and a read,
 * never money; and nothing is refused or answered without a commit (a 402, a release of a hold it
 * does not know) on memory alone. Private to actors/billing.
 */
import type { Hold, OrgAccount } from "../../storage/billing_store.ts";
import type { RunState } from "./_org_batch_decisions.ts";

/** Holds remembered at most: beyond it they are forgotten (the next batch reads what it names). */
const MAX_REMEMBERED_HOLDS = 10_000;

export class OrgMemory {
  #account: OrgAccount | null = null;
  readonly #holds = new Map<string, Hold>();

  /** The state to decide a run on: the account and holds as remembered, or null when none is. */
  state(now: number): RunState | null {
    if (!this.#account) return null;
    for (const [id, hold] of this.#holds) {
      // An expired hold may have been released elsewhere: a message naming it reads storage.
      if (hold.expiresAtMs <= now) this.#holds.delete(id);
    }
    return { account: { ...this.#account }, holds: new Map(this.#holds), caps: new Map(), now };
  }

  /** An account storage answered (a read, or a commit's result). */
  account(account: OrgAccount): void {
    if (!this.#account || account.version >= this.#account.version) this.#account = account;
  }

  /** A hold storage holds now (just reserved, or read). */
  held(hold: Hold): void {
    if (this.#holds.size >= MAX_REMEMBERED_HOLDS) this.#holds.clear();
    this.#holds.set(hold.id, hold);
  }

  /** A hold that is no longer held (settled, released, or not found). */
  gone(holdId: string): void {
    this.#holds.delete(holdId);
  }

  /** Forgets everything (after a failure: what happened in storage is not known). */
  forget(): void {
    this.#account = null;
    this.#holds.clear();
  }
}
