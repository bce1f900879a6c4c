/**
 * SCALE decoding, with `scale-ts`, of the two Subtensor answers the chain price source reads
 * (docs/scoring.md, "Sources"):
 * - `SwapRuntimeApi_current_alpha_price(netuid)` → `u64` little-endian: rao of TAO per alpha;
 * - `SubnetInfoRuntimeApi_get_dynamic_info(netuid)` → `Option<DynamicInfo>`.
 *
 * `DynamicInfo`, in chain order (opentensor/subtensor `pallets/subtensor/src/rpc_info/dynamic_info.rs`):
 * netuid `Compact<u16>`; owner_hotkey, owner_coldkey `AccountId32`; subnet_name, token_symbol
 * `Vec<Compact<u8>>`; tempo `Compact<u16>`; last_step, blocks_since_last_step, emission, alpha_in,
 * alpha_out, tao_in, alpha_out_emission, alpha_in_emission, tao_in_emission, pending_alpha_emission,
 * pending_root_emission `Compact<u64>` (the amounts in rao); subnet_volume `Compact<u128>`;
 * network_registered_at `Compact<u64>`; subnet_identity `Option<SubnetIdentityV3>` (eight `Vec<u8>`:
 * subnet_name, github_repo, subnet_contact, subnet_url, discord, description, logo_url, additional);
 * moving_price `I96F32` (an `i128`, 32 fractional bits).
 *
 * Every field is decoded, exactly: a short read, a trailing byte, an option tag other than 0 or 1,
 * or a compact outside its type's range rejects the payload. The service uses `netuid` (checked
 * against the subnet asked for) and `alpha_out_emission`.
 */
import { Bytes, compact, createDecoder, type Decoder, i128, Struct, u64, u8 } from "scale-ts";
import { encodeSs58 } from "../kernel/mod.ts";

/** scale-ts's decoders read from a Uint8Array carrying its read position in `i`. */
type Cursor = Uint8Array & { i: number };

/** Blocks per day (12 s blocks). */
export const BLOCKS_PER_DAY = 7200;
/** The miners' share of a subnet's alpha emission, in percent. */
export const MINER_SHARE_PERCENT = 41;

/** A subnet's identity as its owner set it (free text). */
export interface SubnetIdentity {
  subnetName: string;
  githubRepo: string;
  subnetContact: string;
  subnetUrl: string;
  discord: string;
  description: string;
  logoUrl: string;
  additional: string;
}

/** A decoded `DynamicInfo`: amounts as raw integers (rao), keys as SS58 addresses. */
export interface DynamicInfo {
  netuid: number;
  ownerHotkey: string;
  ownerColdkey: string;
  subnetName: string;
  tokenSymbol: string;
  tempo: number;
  lastStep: bigint;
  blocksSinceLastStep: bigint;
  emission: bigint;
  alphaIn: bigint;
  alphaOut: bigint;
  taoIn: bigint;
  /** Alpha rao emitted to the subnet's participants per block. */
  alphaOutEmission: bigint;
  alphaInEmission: bigint;
  taoInEmission: bigint;
  pendingAlphaEmission: bigint;
  pendingRootEmission: bigint;
  subnetVolume: bigint;
  networkRegisteredAt: bigint;
  subnetIdentity: SubnetIdentity | null;
  /** The `I96F32` moving price's raw bits (value = bits / 2^32). */
  movingPriceBits: bigint;
}

const text = new TextDecoder();

const remaining = (bytes: Cursor) => bytes.length - bytes.i;

/** A `Compact<uN>` as a bigint, refused when it does not fit in `bits` bits. */
const compactUint = (bits: number): Decoder<bigint> =>
  createDecoder((bytes) => {
    const value = BigInt(compact.dec(bytes));
    if (value >= 1n << BigInt(bits)) throw new RangeError(`Compact<u${bits}> out of range: ${value}`);
    return value;
  });

const compactU8 = compactUint(8);
const compactU64 = compactUint(64);
const compactU16Big = compactUint(16);
const compactU16: Decoder<number> = createDecoder((bytes) => Number(compactU16Big(bytes)));

/** A length prefix that cannot claim more elements than there are bytes left (each takes one or more). */
const lengthPrefix: Decoder<number> = createDecoder((input) => {
  const bytes = input as Cursor; // scale-ts passes its positioned array (see Cursor)
  const length = BigInt(compact.dec(bytes));
  if (length > BigInt(remaining(bytes))) {
    throw new RangeError(`Length ${length} runs past the end (${remaining(bytes)} bytes left)`);
  }
  return Number(length);
});

const accountId: Decoder<string> = createDecoder((input) => {
  const bytes = input as Cursor;
  if (remaining(bytes) < 32) throw new RangeError("AccountId32 runs past the end");
  return encodeSs58(Bytes(32).dec(bytes));
});

/** `Vec<u8>` as text (owner-set, so not required to be valid UTF-8). */
const byteText: Decoder<string> = createDecoder((bytes) => {
  const length = lengthPrefix(bytes);
  return text.decode(Bytes(length).dec(bytes));
});

/** `Vec<Compact<u8>>` (how DynamicInfo carries names) as text. */
const compactByteText: Decoder<string> = createDecoder((bytes) => {
  const length = lengthPrefix(bytes);
  const out = new Uint8Array(length);
  for (let at = 0; at < length; at++) out[at] = Number(compactU8(bytes));
  return text.decode(out);
});

/** `Option<T>` whose tag must be 0 (None, null) or 1 (Some). */
const strictOption = <T>(inner: Decoder<T>): Decoder<T | null> =>
  createDecoder((bytes) => {
    const tag = u8.dec(bytes);
    if (tag > 1) throw new RangeError(`Invalid Option tag ${tag}`);
    return tag === 1 ? inner(bytes) : null;
  });

const subnetIdentityV3 = Struct.dec({
  subnetName: byteText,
  githubRepo: byteText,
  subnetContact: byteText,
  subnetUrl: byteText,
  discord: byteText,
  description: byteText,
  logoUrl: byteText,
  additional: byteText,
});

const dynamicInfo: Decoder<DynamicInfo> = Struct.dec({
  netuid: compactU16,
  ownerHotkey: accountId,
  ownerColdkey: accountId,
  subnetName: compactByteText,
  tokenSymbol: compactByteText,
  tempo: compactU16,
  lastStep: compactU64,
  blocksSinceLastStep: compactU64,
  emission: compactU64,
  alphaIn: compactU64,
  alphaOut: compactU64,
  taoIn: compactU64,
  alphaOutEmission: compactU64,
  alphaInEmission: compactU64,
  taoInEmission: compactU64,
  pendingAlphaEmission: compactU64,
  pendingRootEmission: compactU64,
  subnetVolume: compactUint(128),
  networkRegisteredAt: compactU64,
  subnetIdentity: strictOption(subnetIdentityV3),
  movingPriceBits: i128.dec,
});

/** Runs `decoder` over the whole payload: it must end exactly at the payload's last byte. */
function decodeExactly<T>(decoder: Decoder<T>, payload: Uint8Array, what: string): T {
  // scale-ts reads the whole underlying buffer: hand it one that starts and ends with the payload.
  const exactly = createDecoder((input) => {
    const bytes = input as Cursor;
    const decoded = decoder(bytes);
    if (bytes.i > bytes.length) throw new RangeError(`truncated: read ${bytes.i} of ${bytes.length} bytes`);
    if (bytes.i < bytes.length) throw new RangeError(`${bytes.length - bytes.i} trailing bytes`);
    return decoded;
  });
  try {
    return exactly(payload.slice());
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RangeError(`Cannot decode ${what}: ${reason}`, { cause: error });
  }
}

/** The `current_alpha_price` answer: rao of TAO per alpha (exactly 8 bytes). */
export function decodeAlphaPriceRao(payload: Uint8Array): bigint {
  return decodeExactly(u64.dec, payload, "current_alpha_price (u64)");
}

/**
 * The `get_dynamic_info` answer for subnet `netuid`: null for None (no such subnet). Throws a
 * RangeError when it does not decode exactly or describes another subnet.
 */
export function decodeDynamicInfo(payload: Uint8Array, options: { netuid: number }): DynamicInfo | null {
  const info = decodeExactly(strictOption(dynamicInfo), payload, "Option<DynamicInfo>");
  if (info !== null && info.netuid !== options.netuid) {
    throw new RangeError(`DynamicInfo is for netuid ${info.netuid}, not ${options.netuid}`);
  }
  return info;
}

/** TAO per alpha from the alpha price in rao. */
export function alphaTaoOf(priceRao: bigint): number {
  return Number(priceRao) / 1e9;
}

/**
 * Alpha paid to the subnet's miners per day: `alpha_out_emission` (rao per block) × 7200 blocks ×
 * 0.41, in alpha. 7200 × 41 / 100 = 2952 exactly, so the product is an exact integer of rao,
 * divided by 1e9 once.
 */
export function minerAlphaPerDayOf(alphaOutEmissionRao: bigint): number {
  const perDayRao = alphaOutEmissionRao * BigInt(BLOCKS_PER_DAY) * BigInt(MINER_SHARE_PERCENT) / 100n;
  return Number(perDayRao) / 1e9;
}
