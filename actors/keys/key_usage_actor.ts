import { balanceOf } from "../billing/mod.ts";
import type { BalanceReply } from "../billing/mod.ts";
import type { Actor, ActorSystem, UniformMessages } from "../runtime/mod.ts";
import type { KeyUsageStore, OrgKeyUse } from "../../storage/key_usage_store.ts";

/**
 * A counted use: the window's count including it, and the org's balance and default miner read by the same
 * step.
 */
export interface KeyUseReply {
  count: number;
  balance: BalanceReply;
  defaultMinerHotkey: string | null;
}

/**
 * The owner of one API key's usage (its rate-limit windows and `lastUsedAt`), addressed by key id.
 * Keys' usage could have lived in the OrgActor; it has a mailbox of its own instead so that the keys of
 * a busy org are counted in parallel, not queued one at a time behind each other and behind the
 * org's money messages. It holds no state: each message is ONE storage step that checks the key
 * is still stored for the org at the version the caller checked, counts, and reads the org's
 * account — so it answers the same on every instance, and null once the key was rotated, revoked
 * or deleted, or when it is not that org's.
 */
/** A KeyUsageActor's one message, the use to count, and its reply. */
export type KeyUseMessages = UniformMessages<OrgKeyUse, KeyUseReply | null>;

export class KeyUsageActor implements Actor<KeyUseMessages> {
  readonly #keyId: string;
  readonly #usage: KeyUsageStore;

  constructor(keyId: string, usage: KeyUsageStore) {
    this.#keyId = keyId;
    this.#usage = usage;
  }

  async receive(use: OrgKeyUse): Promise<KeyUseReply | null> {
    const counted = await this.#usage.count(this.#keyId, use);
    if (!counted) return null;
    const { count, account, defaultMinerHotkey } = counted;
    return { count, balance: balanceOf(account), defaultMinerHotkey };
  }
}

/** Counts uses of the key `keyId` (see `KeyUsageActor`). */
export type CountKeyUse = (keyId: string, use: OrgKeyUse) => Promise<KeyUseReply | null>;

/**
 * Registers the KeyUsageActor kind ("key_usage") on `usage` with `actors` (once per system), and
 * returns the `CountKeyUse` that asks it.
 */
export function keyUsageCounter(actors: ActorSystem, usage: KeyUsageStore): CountKeyUse {
  const kind = actors.register<KeyUseMessages>({
    name: "key_usage",
    activate: (keyId) => Promise.resolve(new KeyUsageActor(keyId, usage)),
  });
  return (keyId, use) => actors.ask(kind, keyId, use);
}
