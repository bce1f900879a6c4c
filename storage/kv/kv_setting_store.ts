import type { Fence } from "../job_lease_store.ts";
import type { SettingStore } from "../setting_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";
import { currentFence } from "./_job_lease_keys.ts";
import { LOST, retryConditional } from "../retry_conditional.ts";

/** Times a fenced write re-reads the lease after its commit lost a race (a renewal, a takeover). */
const MAX_FENCED_ATTEMPTS = 5;

/** Settings in Deno KV: the first writer wins, except for fenced writes. */
export class KvSettingStore implements SettingStore {
  readonly #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async get(name: string): Promise<string | null> {
    return (await this.#kv.get<string>(["setting", name])).value;
  }

  async getOrCreate(name: string, candidate: string): Promise<string> {
    const key = ["setting", name];
    await commitAtomic(() => this.#kv.atomic().check({ key, versionstamp: null }).set(key, candidate));
    const stored = await this.#kv.get<string>(key);
    if (stored.value === null) throw new Error(`Cannot read setting: ${name}`);
    return stored.value;
  }

  /** One atomic operation: the lease entry's versionstamp is checked, the setting written. */
  async putFenced(name: string, { value, fence }: { value: string; fence: Fence }): Promise<boolean> {
    return await retryConditional(async () => {
      const lease = await currentFence(this.#kv, fence);
      if (!lease) return false;
      const result = await commitAtomic(() => this.#kv.atomic().check(lease).set(["setting", name], value));
      return result.ok ? true : LOST;
    }, { what: `write setting ${name} under the lease of ${fence.job}`, attempts: MAX_FENCED_ATTEMPTS });
  }
}
