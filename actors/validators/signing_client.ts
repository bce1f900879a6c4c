import { hex } from "@scure/base";
import * as scure from "@scure/sr25519";
import { startedWasmSr25519Sign } from "./sr25519.ts";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { encodeSs58 } from "../kernel/mod.ts";
import {
  canonicalMessage,
  requestTarget,
  SIGNATURE_DOMAINS,
  type SignatureRole,
} from "./canonical_message.ts";
import { isWellFormedNonce, MINER_HOTKEY_HEADER, SIGNATURE_HEADERS } from "./signature_headers.ts";

/** An sr25519 keypair able to sign requests. Never log `secretKey`. */
export interface Signer {
  /** SS58 address, prefix 42. */
  hotkey: string;
  publicKey: Uint8Array;
  /** 64-byte schnorrkel secret key (the ed25519-style form polkadot-js and bittensor store). */
  secretKey: Uint8Array;
}

/**
 * A signer from hex (`0x` optional): either a 32-byte mini-secret (the seed bittensor's
 * `Keypair.create_from_seed` and polkadot-js `sr25519PairFromSeed` take) or a 64-byte secret key
 * (the `privateKey` of a bittensor hotkey file). Throws a TypeError for anything else, without
 * echoing the input.
 */
export function signerFromSecretHex(secretHex: string): Signer {
  const digits = secretHex.trim().replace(/^0x/i, "").toLowerCase();
  if (!/^(?:[0-9a-f]{64}|[0-9a-f]{128})$/.test(digits)) {
    throw new TypeError("Invalid signing secret: expected 32 (seed) or 64 (secret key) bytes of hex");
  }
  const bytes = hex.decode(digits);
  const secretKey = bytes.length === 32 ? scure.secretFromSeed(bytes) : bytes;
  const publicKey = scure.getPublicKey(secretKey);
  return { hotkey: encodeSs58(publicKey), publicKey, secretKey };
}

/** A request about to be sent. */
export interface RequestToSign {
  method: string;
  /** An absolute URL or a request target (`/path?query`); the message covers the target as written. */
  url: string;
  /** The exact body bytes that will be sent (a string is sent as UTF-8); none by default. */
  body?: Uint8Array | string;
  /**
   * Validator role: the miner the request acts for (validator completions, whose body also names
   * the lease the miner's agent runs under, `agentPredictionId`: docs/gateway.md).
   */
  minerHotkey?: string;
}

export interface SignRequestOptions {
  role: SignatureRole;
  /** The signer's clock, Unix epoch milliseconds (the timestamp header). */
  nowMs: number;
  /** Single-use nonce; a fresh random one (32 hex digits) by default. */
  nonce?: string;
}

/**
 * The headers that sign `request` as `signer` under `options.role`'s domain (docs/signatures.md): the
 * four `x-validator-*` (or `x-miner-*`) headers, plus `x-miner-hotkey` when the validator names
 * a miner. In the miner role, the miner hotkey is the signer's own.
 */
export function signRequest(
  signer: Signer,
  request: RequestToSign,
  options: SignRequestOptions,
): Record<string, string> {
  if (
    options.role === "miner" && request.minerHotkey !== undefined && request.minerHotkey !== signer.hotkey
  ) {
    throw new TypeError("Cannot sign as a miner for another miner's hotkey");
  }
  if (options.nonce !== undefined && !isWellFormedNonce(options.nonce)) {
    throw new TypeError("Invalid nonce: expected 16 to 128 printable ASCII characters, no spaces");
  }
  const minerHotkey = options.role === "miner" ? signer.hotkey : request.minerHotkey ?? null;
  const timestamp = String(options.nowMs);
  const nonce = options.nonce ?? randomNonce();
  const message = canonicalMessage(SIGNATURE_DOMAINS[options.role], {
    method: request.method,
    target: requestTarget(request.url),
    timestamp,
    nonce,
    body: request.body ?? "",
    minerHotkey,
  });
  const names = SIGNATURE_HEADERS[options.role];
  const headers: Record<string, string> = {
    [names.hotkey]: signer.hotkey,
    [names.nonce]: nonce,
    [names.timestamp]: timestamp,
    [names.signature]: `0x${hex.encode(signMessage(signer, utf8ToBytes(message)))}`,
  };
  if (minerHotkey !== null) headers[MINER_HOTKEY_HEADER] = minerHotkey;
  return headers;
}

/**
 * `signer`'s sr25519 signature of `message`: by the schnorrkel WebAssembly build once something
 * has started it (`loadWasmSr25519Verify`: the service's verifier does on its first verification),
 * about 3.5× faster here, else by `@scure/sr25519`. Signatures are randomised either way, and each build
 * verifies the other's (tests/validators/signatures_test.ts).
 */
export function signMessage(signer: Signer, message: Uint8Array): Uint8Array {
  const wasmSign = startedWasmSr25519Sign();
  return wasmSign
    ? wasmSign(signer.publicKey, signer.secretKey, message)
    : scure.sign(signer.secretKey, message);
}

/** 16 random bytes as 32 hex digits: within the nonce rules, and never repeated in practice. */
export function randomNonce(): string {
  return hex.encode(crypto.getRandomValues(new Uint8Array(16)));
}
