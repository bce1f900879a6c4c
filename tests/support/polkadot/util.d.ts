/** The part of `@polkadot/util` the tests use (see keyring.d.ts for why it is declared here). */
export function stringToU8a(value: string): Uint8Array;
export function u8aToHex(value: Uint8Array): string;
export function u8aWrapBytes(bytes: Uint8Array): Uint8Array;
