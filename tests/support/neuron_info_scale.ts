/**
 * Builds `get_neurons_lite` payloads byte by byte from the layout in docs/validators.md ("Decoding
 * `NeuronInfoLite`"), independently of the decoder under test (its own SCALE writer, no scale-ts), for the
 * decoder's tests and the fake Subtensor.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";

/** One neuron as the chain stores it (raw integers, 32-byte keys). */
export interface NeuronFixture {
  hotkey: Uint8Array;
  coldkey: Uint8Array;
  uid: number;
  netuid: number;
  active: boolean;
  /** (coldkey, rao) entries. */
  stake: [Uint8Array, bigint][];
  rank: number;
  emission: bigint;
  /** u16 fixed-point values, 0..65535. */
  incentive: number;
  consensus: number;
  trust: number;
  validatorTrust: number;
  dividends: number;
  lastUpdate: bigint;
  validatorPermit: boolean;
  pruningScore: number;
}

/** SCALE compact encoding of a non-negative integer, written from the specification. */
export function compactBytes(value: number | bigint): Uint8Array {
  const n = BigInt(value);
  if (n < 0n) throw new RangeError("Compact values are unsigned");
  if (n < 1n << 6n) return Uint8Array.of(Number(n) << 2);
  if (n < 1n << 14n) return littleEndian((n << 2n) | 1n, 2);
  if (n < 1n << 30n) return littleEndian((n << 2n) | 2n, 4);
  let length = 0;
  for (let rest = n; rest > 0n; rest >>= 8n) length++;
  return Uint8Array.of(((length - 4) << 2) | 3, ...littleEndian(n, length));
}

/** `value` as `bytes` little-endian bytes. */
export function littleEndian(value: number | bigint, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let rest = BigInt(value);
  for (let i = 0; i < bytes; i++) {
    out[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** One `NeuronInfoLite` in chain order; axon and prometheus info carry fixed made-up values. */
export function encodeNeuronInfoLite(n: NeuronFixture): Uint8Array {
  const flag = (value: boolean) => Uint8Array.of(value ? 1 : 0);
  const axon = [
    littleEndian(n.lastUpdate, 8),
    littleEndian(1, 4),
    littleEndian(0x7f000001, 16),
    littleEndian(8091, 2),
  ];
  const prometheus = [
    littleEndian(0, 8),
    littleEndian(0, 4),
    littleEndian(0, 16),
    littleEndian(0, 2),
    Uint8Array.of(0),
  ];
  return concat([
    n.hotkey,
    n.coldkey,
    compactBytes(n.uid),
    compactBytes(n.netuid),
    flag(n.active),
    ...axon,
    Uint8Array.of(4, 0, 0, 0),
    ...prometheus,
    compactBytes(n.stake.length),
    ...n.stake.flatMap(([coldkey, rao]) => [coldkey, compactBytes(rao)]),
    compactBytes(n.rank),
    compactBytes(n.emission),
    ...[n.incentive, n.consensus, n.trust, n.validatorTrust, n.dividends].map(compactBytes),
    compactBytes(n.lastUpdate),
    flag(n.validatorPermit),
    compactBytes(n.pruningScore),
  ]);
}

/** The `Vec<NeuronInfoLite>` payload; `wrapped` adds the `Vec<u8>` byte-length prefix of old runtimes. */
export function encodeNeuronsLite(
  neurons: readonly NeuronFixture[],
  options: { wrapped?: boolean } = {},
): Uint8Array {
  const vec = concat([compactBytes(neurons.length), ...neurons.map(encodeNeuronInfoLite)]);
  return options.wrapped ? concat([compactBytes(vec.length), vec]) : vec;
}

/** A deterministic 32-byte key for `label` (not a curve point: fine for addresses). */
export function testKey(label: string): Uint8Array {
  return sha256(utf8ToBytes(label));
}

/**
 * `count` neurons of `netuid` with uids 0..count-1; every uid in `validators` holds a permit and
 * several stake entries, some beyond 2^53 rao. Values are varied so every compact width is used.
 */
export function generateNeurons(
  count: number,
  options: { netuid: number; validators: readonly number[] },
): NeuronFixture[] {
  return Array.from({ length: count }, (_, uid) => {
    const validator = options.validators.includes(uid);
    const stake: [Uint8Array, bigint][] = validator
      ? [[testKey(`staker-a-${uid}`), 312_460_092_414_791n + BigInt(uid)], [
        testKey(`staker-b-${uid}`),
        2n ** 60n,
      ], [
        testKey(`staker-c-${uid}`),
        7n,
      ]]
      : uid % 3 === 0
      ? []
      : [[testKey(`coldkey-${uid}`), BigInt(uid) * 1_000_000_007n]];
    return {
      hotkey: testKey(`hotkey-${uid}`),
      coldkey: testKey(`coldkey-${uid}`),
      uid,
      netuid: options.netuid,
      active: uid % 7 !== 0,
      stake,
      rank: (uid * 61) % 65_536,
      emission: BigInt(uid) * 15_594_809n + (uid % 5 === 0 ? 2n ** 40n : 0n),
      incentive: (uid * 64) % 65_536,
      consensus: uid % 64,
      trust: 65_535 - uid,
      validatorTrust: validator ? 65_535 : 0,
      dividends: validator ? 24_926 : 0,
      lastUpdate: 6_852_650n - BigInt(uid),
      validatorPermit: validator,
      pruningScore: (uid * 1_000) % 65_536,
    };
  });
}
