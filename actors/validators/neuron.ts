/**
 * A neuron of the subnet as the service uses it: the decoded `NeuronInfoLite` of DESIGN §8, with
 * the values scaled as DESIGN §7 states (the Python SDK's scaling).
 */
export interface Neuron {
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

/** The whole metagraph of one subnet at one block: what a sync either gets entirely or not at all. */
export interface MetagraphSnapshot {
  netuid: number;
  block: number;
  neurons: Neuron[];
}

/** The chain's u16 fixed-point fractions (incentive, consensus, trust, …) as numbers in 0..1. */
export const U16_SCALE = 65_535;

/**
 * Throws a RangeError when two neurons share a uid or a hotkey: the chain never reports that, so a
 * source that does is corrupt and its snapshot must not be used.
 */
export function assertDistinctNeurons(neurons: readonly Neuron[]): void {
  const uids = new Set<number>();
  const hotkeys = new Set<string>();
  for (const neuron of neurons) {
    if (uids.has(neuron.uid)) throw new RangeError(`Invalid metagraph: uid ${neuron.uid} appears twice`);
    if (hotkeys.has(neuron.hotkey)) {
      throw new RangeError(`Invalid metagraph: hotkey ${neuron.hotkey} appears twice`);
    }
    uids.add(neuron.uid);
    hotkeys.add(neuron.hotkey);
  }
}
