import type { Fence } from "./job_lease_store.ts";

/**
 * A neuron of the subnet: the decoded `NeuronInfoLite` fields the service uses, with
 * the values scaled as the Python SDK scales them (docs/validators.md, "Decoding `NeuronInfoLite`"). `Neuron`
 * in `actors/validators` is this type.
 */
export interface NeuronRecord {
  uid: number;
  /** SS58, prefix 42. */
  hotkey: string;
  /** SS58, prefix 42. */
  coldkey: string;
  active: boolean;
  validatorPermit: boolean;
  /** Total stake on the hotkey in rao (the sum over its stake entries). */
  stakeRao: bigint;
  /** Emission in rao per tempo. */
  emissionRao: bigint;
  /** 0..1 (the chain's u16 ÷ 65535). */
  incentive: number;
  consensus: number;
  trust: number;
  validatorTrust: number;
  dividends: number;
  /** Block number of the neuron's last weights update. */
  lastUpdate: number;
}

/** A neuron as stored: plus when its (hotkey, uid) pair was first seen. */
export interface StoredNeuron extends NeuronRecord {
  /** When a successful sync first saw this hotkey on this uid. */
  firstSeenAtMs: number;
}

/** What a sync writes: the whole metagraph of one subnet at one block. */
export interface MetagraphWrite {
  netuid: number;
  block: number;
  neurons: readonly NeuronRecord[];
}

/** The latest metagraph of a subnet, with the time of the last successful sync. */
export interface StoredMetagraph {
  netuid: number;
  block: number;
  /** Time of the last successful sync, on the syncing instance's clock. */
  syncedAtMs: number;
  /** Ordered by uid. */
  neurons: StoredNeuron[];
}

/**
 * A (hotkey, uid) pair seen in a subnet's metagraph. A uid taken by a new hotkey is a new miner:
 * a new pair with its own `firstSeenAtMs`; a pair seen again keeps the time it was first seen.
 */
export interface NeuronPair {
  uid: number;
  hotkey: string;
  firstSeenAtMs: number;
}

/** The metagraph the service believes in, per subnet, and every (hotkey, uid) pair ever seen. */
export interface MetagraphStore {
  /**
   * Records one successful sync, only if `fence.token` is still the current grant of the job lease
   * `fence.job`: replaces the subnet's latest metagraph, sets its sync time to `syncedAtMs`, and
   * adds the pairs not seen before with `firstSeenAtMs = syncedAtMs`. All of it or nothing is
   * visible to readers. True when written, false when fenced off (nothing written).
   */
  putFenced(metagraph: MetagraphWrite, options: { syncedAtMs: number; fence: Fence }): Promise<boolean>;
  /** The subnet's latest metagraph, or null before its first successful sync. */
  latest(netuid: number): Promise<StoredMetagraph | null>;
  /** The time of the subnet's last successful sync, or null: a cheap check before `latest`. */
  lastSyncedAt(netuid: number): Promise<number | null>;
  /** Every pair ever seen in the subnet (only `hotkey`'s when given), ordered by uid, then time. */
  pairs(netuid: number, options?: { hotkey?: string }): Promise<NeuronPair[]>;
}
