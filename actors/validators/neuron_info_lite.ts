/**
 * SCALE decoding of Subtensor's `NeuronInfoRuntimeApi_get_neurons_lite` answer (docs/validators.md, "Decoding
 * `NeuronInfoLite`") with `scale-ts`: a `Vec<NeuronInfoLite>`, or, from runtimes before spec 233, the same
 * bytes wrapped in a `Vec<u8>`. The payload must decode exactly — a short read, trailing bytes, an
 * out-of-range value or a neuron of another subnet rejects the whole payload, never a part of it.
 */
import { hex } from "@scure/base";
import {
  Bytes,
  compact,
  createDecoder,
  type Decoder,
  Struct,
  Tuple,
  u128,
  u16,
  u32,
  u64,
  u8,
  Vector,
} from "scale-ts";
import { encodeSs58 } from "../kernel/mod.ts";
import { assertDistinctNeurons, type Neuron, U16_SCALE } from "./neuron.ts";

/** scale-ts's decoders read from a Uint8Array carrying its read position in `i`. */
type Cursor = Uint8Array & { i: number };

const bytes32 = Bytes(32).dec;

const accountId: Decoder<Uint8Array> = createDecoder((bytes) => {
  const id = bytes32(bytes);
  if (id.length !== 32) throw new RangeError("AccountId32 runs past the end");
  return id;
});

const strictBool: Decoder<boolean> = createDecoder((bytes) => {
  const value = u8.dec(bytes);
  if (value > 1) throw new RangeError(`Invalid bool byte ${value}`);
  return value === 1;
});

const compactU16: Decoder<number> = createDecoder((bytes) => {
  const value = Number(compact.dec(bytes));
  if (value > 0xffff) throw new RangeError(`Compact<u16> out of range: ${value}`);
  return value;
});

const compactU64: Decoder<bigint> = createDecoder((bytes) => {
  const value = BigInt(compact.dec(bytes));
  if (value >= 1n << 64n) throw new RangeError(`Compact<u64> out of range: ${value}`);
  return value;
});

const axonInfo = Struct({
  block: u64,
  version: u32,
  ip: u128,
  port: u16,
  ipType: u8,
  protocol: u8,
  placeholder1: u8,
  placeholder2: u8,
});
const prometheusInfo = Struct({ block: u64, version: u32, ip: u128, port: u16, ipType: u8 });

/** The fields of `NeuronInfoLite`, in chain order. */
const neuronInfoLite = Struct.dec({
  hotkey: accountId,
  coldkey: accountId,
  uid: compactU16,
  netuid: compactU16,
  active: strictBool,
  axonInfo: axonInfo.dec,
  prometheusInfo: prometheusInfo.dec,
  stake: Vector.dec(Tuple.dec(accountId, compactU64)),
  rank: compactU16,
  emission: compactU64,
  incentive: compactU16,
  consensus: compactU16,
  trust: compactU16,
  validatorTrust: compactU16,
  dividends: compactU16,
  lastUpdate: compactU64,
  validatorPermit: strictBool,
  pruningScore: compactU16,
});

type RawNeuron = ReturnType<typeof neuronInfoLite>;

/** Fewest bytes one `NeuronInfoLite` can take (empty stake, every compact one byte). */
export const MIN_NEURON_INFO_LITE_BYTES = 32 + 32 + 1 + 1 + 1 + 34 + 31 + 1 + 1 + 1 + 5 + 1 + 1 + 1;

/**
 * Reads the `Vec<NeuronInfoLite>`, bare or `Vec<u8>`-wrapped. The form is told apart by the first
 * compact: in the wrapped form it is the byte length of everything after it; in the bare form it is
 * a neuron count, and n > 0 neurons take more than n bytes, so it can never equal that length.
 */
const neuronVec = createDecoder((input) => {
  const bytes = input as Cursor; // scale-ts passes its positioned array (see Cursor)
  let count = Number(compact.dec(bytes));
  if (count > 0 && count === bytes.length - bytes.i) count = Number(compact.dec(bytes));
  const room = Math.floor((bytes.length - bytes.i) / MIN_NEURON_INFO_LITE_BYTES);
  if (count > room) throw new RangeError(`Vec claims ${count} neurons, room for at most ${room}`);
  const neurons: RawNeuron[] = [];
  for (let n = 0; n < count; n++) neurons.push(neuronInfoLite(bytes));
  if (bytes.i > bytes.length) {
    throw new RangeError(`Payload truncated: read ${bytes.i} of ${bytes.length} bytes`);
  }
  if (bytes.i < bytes.length) {
    throw new RangeError(`${bytes.length - bytes.i} trailing bytes after ${count} neurons`);
  }
  return neurons;
});

/**
 * Decodes a `get_neurons_lite` payload into neurons of subnet `netuid`. Throws a RangeError,
 * naming the cause, when the payload does not decode exactly or holds a neuron of another subnet
 * or a repeated uid or hotkey.
 */
export function decodeNeuronsLite(payload: Uint8Array, options: { netuid: number }): Neuron[] {
  let raws: RawNeuron[];
  try {
    // scale-ts reads the whole underlying buffer: hand it one that starts and ends with the payload.
    raws = neuronVec(payload.slice());
  } catch (error) {
    throw new RangeError(
      `Cannot decode NeuronInfoLite payload: ${error instanceof Error ? error.message : error}`,
      {
        cause: error,
      },
    );
  }
  const neurons = raws.map((raw) => toNeuron(raw, options.netuid));
  assertDistinctNeurons(neurons);
  return neurons;
}

function toNeuron(raw: RawNeuron, netuid: number): Neuron {
  if (raw.netuid !== netuid) {
    throw new RangeError(`Neuron uid ${raw.uid} belongs to netuid ${raw.netuid}, not ${netuid}`);
  }
  if (raw.lastUpdate > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`Neuron uid ${raw.uid}: last_update too large`);
  }
  return {
    uid: raw.uid,
    hotkey: encodeSs58(raw.hotkey),
    coldkey: encodeSs58(raw.coldkey),
    active: raw.active,
    validatorPermit: raw.validatorPermit,
    stakeRao: raw.stake.reduce((sum, [, rao]) => sum + rao, 0n),
    emissionRao: raw.emission,
    incentive: raw.incentive / U16_SCALE,
    consensus: raw.consensus / U16_SCALE,
    trust: raw.trust / U16_SCALE,
    validatorTrust: raw.validatorTrust / U16_SCALE,
    dividends: raw.dividends / U16_SCALE,
    lastUpdate: Number(raw.lastUpdate),
  };
}

/**
 * The payload bytes of a JSON-RPC `result`: the `0x`-prefixed hex string `state_call` answers, or
 * the array of byte numbers the older `neuronInfo_getNeuronsLite` answers. Throws a TypeError for
 * anything else (odd-length or non-hex strings, numbers outside 0..255).
 */
export function payloadFromRpcResult(result: unknown): Uint8Array {
  if (typeof result === "string" && /^0x(?:[0-9a-fA-F]{2})*$/.test(result)) {
    return hex.decode(result.slice(2).toLowerCase());
  }
  if (Array.isArray(result) && result.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
    return Uint8Array.from(result as number[]);
  }
  throw new TypeError("Invalid JSON-RPC result: expected 0x-prefixed hex or an array of bytes");
}

/** The `state_call` argument for a subnet: its netuid as u16 little-endian, in hex (41 → `0x2900`). */
export function netuidCallArgument(netuid: number): string {
  if (!Number.isInteger(netuid) || netuid < 0 || netuid > 0xffff) {
    throw new RangeError(`Invalid netuid: expected 0..65535, got ${netuid}`);
  }
  return `0x${hex.encode(u16.enc(netuid))}`;
}
