import { encodeSs58 } from "../../actors/kernel/mod.ts";
import type { MetagraphSnapshot, Neuron } from "../../actors/validators/mod.ts";
import { type NeuronFixture, testKey } from "./neuron_info_scale.ts";

/** The SS58 hotkey `neuronAt` gives to `label` (default: the uid). */
export function hotkeyOf(label: string | number): string {
  return encodeSs58(testKey(`hotkey-${label}`));
}

/**
 * A decoded neuron with made-up values; `hotkey` names the key's label (default the uid), so a
 * test can give a uid to a new hotkey. Validators (permit) hold more stake than 2^63 rao.
 */
export function neuronAt(uid: number, options: { hotkey?: string; validator?: boolean } = {}): Neuron {
  const validator = options.validator ?? false;
  return {
    uid,
    hotkey: hotkeyOf(options.hotkey ?? uid),
    coldkey: encodeSs58(testKey(`coldkey-${uid}`)),
    active: uid % 7 !== 0,
    validatorPermit: validator,
    stakeRao: validator ? 2n ** 63n + BigInt(uid) : BigInt(uid) * 1_000_000_007n,
    emissionRao: BigInt(uid) * 15_594_809n,
    incentive: (uid * 64 % 65_536) / 65_535,
    consensus: (uid % 64) / 65_535,
    trust: (65_535 - uid) / 65_535,
    validatorTrust: validator ? 1 : 0,
    dividends: validator ? 24_926 / 65_535 : 0,
    lastUpdate: 6_852_650 - uid,
  };
}

/** A metagraph of `count` neurons (uids 0..count-1); uids in `validators` hold a permit. */
export function metagraphOf(
  count: number,
  options: { netuid?: number; block?: number; validators?: readonly number[] } = {},
): MetagraphSnapshot {
  const validators = new Set(options.validators ?? []);
  return {
    netuid: options.netuid ?? 41,
    block: options.block ?? 6_852_690,
    neurons: Array.from({ length: count }, (_, uid) => neuronAt(uid, { validator: validators.has(uid) })),
  };
}

/** What a chain fixture decodes to (docs/validators.md), computed from its raw values. */
export function neuronOfFixture(f: NeuronFixture): Neuron {
  return {
    uid: f.uid,
    hotkey: encodeSs58(f.hotkey),
    coldkey: encodeSs58(f.coldkey),
    active: f.active,
    validatorPermit: f.validatorPermit,
    stakeRao: f.stake.reduce((sum, [, rao]) => sum + rao, 0n),
    emissionRao: f.emission,
    incentive: f.incentive / 65535,
    consensus: f.consensus / 65535,
    trust: f.trust / 65535,
    validatorTrust: f.validatorTrust / 65535,
    dividends: f.dividends / 65535,
    lastUpdate: Number(f.lastUpdate),
  };
}
