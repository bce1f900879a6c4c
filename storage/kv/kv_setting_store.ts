import type { SettingStore } from "../setting_store.ts";
import { commitAtomic } from "./_atomic_retry.ts";

/** Settings in Deno KV: the first writer wins. */
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
}
