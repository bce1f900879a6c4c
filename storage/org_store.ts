import type { AuditEntry } from "./audit_store.ts";

/** An organisation: the customer account that owns a balance, API keys and miner hotkeys. */
export interface OrgRecord {
  id: string;
  name: string;
  createdAtMs: number;
  /** The miner calls are attributed to when neither the request nor the key names one. */
  defaultMinerHotkey: string | null;
}

/**
 * A miner hotkey registered to an organisation (a hotkey belongs to at most one): by the operator,
 * or linked by an owner with a signed proof that the organisation holds it. Only a hotkey linked
 * with proof and bound to a member signs in to the dashboard, as that member.
 */
export interface MinerRegistration {
  hotkey: string;
  orgId: string;
  registeredAtMs: number;
  /** True once the hotkey signed a link proof for this org; false for the operator's registration. */
  linkedWithProof: boolean;
  /** The member the hotkey signs in as; null when it signs in as nobody. */
  boundMemberId: string | null;
}

/** "registered": new; "already": registered to this org before; "taken": another org has it. */
export type RegisterOutcome = "registered" | "already" | "taken";

/**
 * "bound": done (a change ends the sessions the hotkey signed in); "unchanged": bound so already;
 * "not_found": not this org's hotkey; "not_linked_with_proof": registered without proof (such a
 * hotkey never signs in); "no_member": the member is not one of the org's.
 */
export type BindOutcome = "bound" | "unchanged" | "not_found" | "not_linked_with_proof" | "no_member";

/** Options of `registerMiner`. */
export interface RegisterMinerOptions {
  atMs: number;
  makeDefault: boolean;
  /** The hotkey proved it is held (a link): sets `linkedWithProof`, also on a registration this org had. */
  proof?: boolean;
  /** Written in the same commit when the registration changes (not for "already" without a change). */
  audit?: AuditEntry;
}

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
  registerMiner(orgId: string, hotkey: string, options: RegisterMinerOptions): Promise<RegisterOutcome>;
  /**
   * Removes the registration (and the default, if it was the default) and ends the dashboard
   * sessions the hotkey signed in, in one commit with `audit`; false when not this org's.
   */
  unregisterMiner(orgId: string, hotkey: string, options?: { audit?: AuditEntry }): Promise<boolean>;
  /**
   * Binds a hotkey linked with proof to a member of the org for sign-in (`memberId` null: to
   * nobody); a change ends the sessions the hotkey signed in, in one commit with `audit`.
   */
  bindMiner(
    orgId: string,
    hotkey: string,
    options: { memberId: string | null; audit: AuditEntry },
  ): Promise<BindOutcome>;
  /** Makes a hotkey registered to `orgId` its default miner; false when it is not this org's. */
  setDefaultMiner(orgId: string, hotkey: string): Promise<boolean>;
  /** The org's miners, ordered by hotkey. */
  listMiners(orgId: string): Promise<MinerRegistration[]>;
  /** The registration of `hotkey`, whichever org holds it. */
  minerRegistration(hotkey: string): Promise<MinerRegistration | null>;
  /** The available amount (micro-units) below which the org's owners are warned; null when none is set. */
  lowBalance(orgId: string): Promise<bigint | null>;
  /**
   * Sets the low-balance threshold (null clears it), with `audit` in the same commit; false when
   * the org does not exist.
   */
  setLowBalance(
    orgId: string,
    thresholdMicro: bigint | null,
    options?: { audit?: AuditEntry },
  ): Promise<boolean>;
}
