/**
 * The part of `@polkadot/keyring` the tests use. Its own types reach `@types/bn.js`, which pulls
 * `@types/node` into the whole type-check and changes `node:assert`'s signatures for every test.
 */
export interface KeyringPair {
  address: string;
  publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

export class Keyring {
  constructor(options: { type: "sr25519"; ss58Format: number });
  addFromUri(uri: string): KeyringPair;
  encodeAddress(publicKey: Uint8Array, ss58Format?: number): string;
}
