import type { NeuronRecord } from "../../storage/metagraph_store.ts";

/** A neuron of the subnet as the service uses it (the stored shape, without `firstSeenAtMs`). */
export type Neuron = NeuronRecord;

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
