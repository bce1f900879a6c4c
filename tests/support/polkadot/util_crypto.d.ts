/** The part of `@polkadot/util-crypto` the tests use (see keyring.d.ts for why it is declared here). */
export function cryptoWaitReady(): Promise<boolean>;
