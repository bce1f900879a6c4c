import { base58 } from "@scure/base";
import { blake2b } from "@noble/hashes/blake2.js";
import { concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";

const PUBLIC_KEY_BYTES = 32;
const CHECKSUM_BYTES = 2;
const CHECKSUM_PREFIX = utf8ToBytes("SS58PRE");
/** Longest SS58 string for a 32-byte key (2-byte prefix): 36 bytes in base58. */
const MAX_LENGTH = 50;

/**
 * The SS58 network prefix of Bittensor (42, the generic Substrate prefix: addresses start with
 * `5`). The only prefix accepted for miner hotkeys, so that one public key has one address and
 * cannot be registered to two orgs under two spellings.
 */
export const BITTENSOR_SS58_PREFIX = 42;

/** A decoded SS58 account address. */
export interface Ss58Address {
  /** Network prefix (0..16383): 42 is generic Substrate, which bittensor uses. */
  prefix: number;
  publicKey: Uint8Array;
}

/**
 * Decodes an SS58 address of a 32-byte public key: base58, a 1-byte (prefix < 64) or 2-byte
 * (prefix 64..16383) network prefix, and the 2-byte checksum (the first bytes of
 * blake2b-512("SS58PRE" ‖ prefix ‖ key)). Any network prefix is accepted. Returns null when
 * `address` is not such an address (bad alphabet, length, prefix byte or checksum).
 */
export function decodeSs58(address: string): Ss58Address | null {
  if (address.length === 0 || address.length > MAX_LENGTH) return null;
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(address);
  } catch {
    return null;
  }
  const first = bytes[0];
  if (first === undefined || first >= 128) return null;
  const prefixBytes = first < 64 ? 1 : 2;
  if (bytes.length !== prefixBytes + PUBLIC_KEY_BYTES + CHECKSUM_BYTES) return null;
  const body = bytes.subarray(0, bytes.length - CHECKSUM_BYTES);
  const hash = blake2b(concatBytes(CHECKSUM_PREFIX, body), { dkLen: 64 });
  if (hash[0] !== bytes[body.length] || hash[1] !== bytes[body.length + 1]) return null;
  return { prefix: prefixOf(bytes, prefixBytes), publicKey: bytes.slice(prefixBytes, body.length) };
}

function prefixOf(bytes: Uint8Array, prefixBytes: number): number {
  const first = bytes[0] ?? 0;
  if (prefixBytes === 1) return first;
  const second = bytes[1] ?? 0;
  return ((first & 0b0011_1111) << 2) | (second >> 6) | ((second & 0b0011_1111) << 8);
}

/** Bittensor addresses decoded lately (a signed request's hotkey is checked on every request). */
const KNOWN_ADDRESSES = 8_192;
const knownKeys = new Map<string, Uint8Array>();

/**
 * The 32-byte public key of a Bittensor SS58 address (`isSs58Address`), or null when `address`
 * is not one. Decoding takes a blake2b checksum, so the keys of the last few thousand distinct
 * addresses are kept (the map starts over when full); each answer is a fresh copy.
 */
export function bittensorPublicKey(address: string): Uint8Array | null {
  let key = knownKeys.get(address);
  if (key === undefined) {
    const decoded = decodeSs58(address);
    if (decoded?.prefix !== BITTENSOR_SS58_PREFIX) return null;
    if (knownKeys.size >= KNOWN_ADDRESSES) knownKeys.clear();
    key = decoded.publicKey;
    knownKeys.set(address, key);
  }
  return key.slice();
}

/**
 * True when `value` is a Bittensor SS58 address: well-formed (checksum included), of a 32-byte key,
 * with network prefix 42 (`BITTENSOR_SS58_PREFIX`). The same key under another prefix is refused.
 */
export function isSs58Address(value: string): boolean {
  return bittensorPublicKey(value) !== null;
}

/** The 32-byte public key of an SS58 address on any prefix; throws a TypeError when it is not one. */
export function ss58PublicKey(address: string): Uint8Array {
  const decoded = decodeSs58(address);
  if (!decoded) throw new TypeError(`Invalid SS58 address: ${address.slice(0, MAX_LENGTH)}`);
  return decoded.publicKey;
}

/**
 * The SS58 address of a 32-byte public key under `prefix` (default 42, Bittensor's): base58 of
 * prefix ‖ key ‖ the first 2 bytes of blake2b-512("SS58PRE" ‖ prefix ‖ key). Throws a RangeError
 * for a key that is not 32 bytes or a prefix outside 0..16383.
 */
export function encodeSs58(publicKey: Uint8Array, prefix: number = BITTENSOR_SS58_PREFIX): string {
  if (publicKey.length !== PUBLIC_KEY_BYTES) {
    throw new RangeError(`Invalid public key: expected ${PUBLIC_KEY_BYTES} bytes, got ${publicKey.length}`);
  }
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 16383) {
    throw new RangeError(`Invalid SS58 prefix: expected 0..16383, got ${prefix}`);
  }
  const prefixBytes = prefix < 64
    ? Uint8Array.of(prefix)
    : Uint8Array.of(((prefix & 0b1111_1100) >> 2) | 0b0100_0000, (prefix >> 8) | ((prefix & 0b11) << 6));
  const body = concatBytes(prefixBytes, publicKey);
  const hash = blake2b(concatBytes(CHECKSUM_PREFIX, body), { dkLen: 64 });
  return base58.encode(concatBytes(body, hash.subarray(0, CHECKSUM_BYTES)));
}
