/** An organisation: the customer account that owns a balance, API keys and miner hotkeys. */
export interface OrgRecord {
  id: string;
  name: string;
  createdAtMs: number;
  /** The miner calls are attributed to when neither the request nor the key names one. */
  defaultMinerHotkey: string | null;
}

/** A miner hotkey registered to an organisation (a hotkey belongs to at most one). */
export interface MinerRegistration {
  hotkey: string;
  orgId: string;
  registeredAtMs: number;
}

/** "registered": new; "already": registered to this org before; "taken": another org has it. */
export type RegisterOutcome = "registered" | "already" | "taken";

/**
 * Port for organisations and their miner hotkeys. Creating an org also creates its empty
 * account (balance 0, version 0) in the same commit; the account is `BillingStore`'s.
 * Each org is written only by its OrgActor; the storage enforces the cross-org rule that a
 * hotkey belongs to at most one org, and that the default miner is one of the org's miners.
 */
export interface OrgStore {
  /** Creates the org and its empty account; false when the id is taken. */
  create(org: Omit<OrgRecord, "defaultMinerHotkey">): Promise<boolean>;
  get(id: string): Promise<OrgRecord | null>;
  /**
   * Registers `hotkey` to `orgId` unless another org has it, and makes it the org's default
   * miner when `makeDefault` (also when it was already registered to this org).
   */
  registerMiner(
    orgId: string,
    hotkey: string,
    options: { atMs: number; makeDefault: boolean },
  ): Promise<RegisterOutcome>;
  /** Removes the registration (and the default, if it was the default); false when not this org's. */
  unregisterMiner(orgId: string, hotkey: string): Promise<boolean>;
  /** Makes a hotkey registered to `orgId` its default miner; false when it is not this org's. */
  setDefaultMiner(orgId: string, hotkey: string): Promise<boolean>;
  /** The org's miners, ordered by hotkey. */
  listMiners(orgId: string): Promise<MinerRegistration[]>;
  /** The registration of `hotkey`, whichever org holds it. */
  minerRegistration(hotkey: string): Promise<MinerRegistration | null>;
  /** The available amount (micro-units) below which the org's owners are warned; null when none is set. */
  lowBalance(orgId: string): Promise<bigint | null>;
  /** Sets the low-balance threshold (null clears it); false when the org does not exist. */
  setLowBalance(orgId: string, thresholdMicro: bigint | null): Promise<boolean>;
}
