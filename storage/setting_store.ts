/** Small shared values every instance must agree on (for example the cursor signing secret). */
export interface SettingStore {
  /** Returns the stored value of `name`, storing `candidate` first if there is none (atomically). */
  getOrCreate(name: string, candidate: string): Promise<string>;
  /** The stored value of `name`, or null. */
  get(name: string): Promise<string | null>;
}
