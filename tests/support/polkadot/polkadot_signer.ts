/**
 * sr25519 keys of polkadot-js's keyring, signing as browser extensions do: polkadot{.js} and
 * Talisman answer `signRaw({ type: "bytes", data })` with the signature of
 * `<Bytes>` ‖ data ‖ `</Bytes>` (`u8aWrapBytes`); bittensor's `Keypair.sign` signs the bytes raw.
 */
// @ts-types="./keyring.d.ts"
import { Keyring, type KeyringPair } from "@polkadot/keyring";
// @ts-types="./util.d.ts"
import { stringToU8a, u8aToHex, u8aWrapBytes } from "@polkadot/util";
// @ts-types="./util_crypto.d.ts"
import { cryptoWaitReady } from "@polkadot/util-crypto";

await cryptoWaitReady();
const keyring = new Keyring({ type: "sr25519", ss58Format: 42 });

export interface PolkadotSigner {
  /** SS58 address, prefix 42. */
  address: string;
  publicKey: Uint8Array;
  /** What an extension's `signRaw` answers for `message`: 0x-hex of the signature of the wrapped bytes. */
  extensionSign(message: string): string;
  /** 0x-hex of the signature of the message's bytes as they are. */
  rawSign(message: string): string;
}

/** The keyring's pair of a dev URI (`//Alice`, `//Bob`…). */
export function polkadotSigner(uri: string): PolkadotSigner {
  const pair: KeyringPair = keyring.addFromUri(uri);
  return {
    address: pair.address,
    publicKey: pair.publicKey,
    extensionSign: (message) => u8aToHex(pair.sign(u8aWrapBytes(stringToU8a(message)))),
    rawSign: (message) => u8aToHex(pair.sign(stringToU8a(message))),
  };
}

/** The address of `publicKey` under another SS58 prefix (0: Polkadot's). */
export function addressWithPrefix(publicKey: Uint8Array, prefix: number): string {
  return keyring.encodeAddress(publicKey, prefix);
}
