import type { Fence } from "./job_lease_store.ts";

/** Small shared values every instance must agree on (for example the cursor signing secret). */
export interface SettingStore {
  /** Returns the stored value of `name`, storing `candidate` first if there is none (atomically). */
  getOrCreate(name: string, candidate: string): Promise<string>;
  /** The stored value of `name`, or null. */
  get(name: string): Promise<string | null>;
  /**
   * Stores `value` under `name` (replacing it) only if `fence.token` is still the current grant of
   * the job lease `fence.job`, checked and written in one atomic step: a run that lost its job cannot
   * overwrite what a newer run wrote. True when written, false when fenced off.
   */
  putFenced(name: string, options: { value: string; fence: Fence }): Promise<boolean>;
}
