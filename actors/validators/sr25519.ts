import * as scure from "@scure/sr25519";
import type { Logger } from "../kernel/mod.ts";
import { startSr25519Wasm } from "./sr25519_wasm.ts";

/**
 * Verifies a 64-byte sr25519 signature (schnorrkel, signing context "substrate") of `message`
 * by a 32-byte public key. Never throws: a key that is not a curve point, or a signature without
 * the schnorrkel marker, is simply not valid.
 */
export type Sr25519Verify = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

/** Pure TypeScript verification (`@scure/sr25519`, on noble's ristretto255). Ready at once. */
export const scureSr25519Verify: Sr25519Verify = (signature, message, publicKey) => {
  try {
    return scure.verify(message, signature, publicKey);
  } catch {
    return false;
  }
};

/** Signs `message` (sr25519, context "substrate") with a 64-byte secret key and its public key. */
export type Sr25519Sign = (publicKey: Uint8Array, secretKey: Uint8Array, message: Uint8Array) => Uint8Array;

let wasmReady: Promise<Sr25519Verify> | null = null;
let wasmSign: Sr25519Sign | null = null;

/**
 * The schnorrkel reference implementation compiled to WebAssembly (`@polkadot/wasm-crypto`),
 * loaded from the npm package itself (no network) when first asked for: importing it decodes and
 * inflates its WebAssembly, about 65 ms of CPU. The first call instantiates the module; later
 * calls share it. Rejects when the WebAssembly build cannot start (the package would otherwise
 * fall back to its much slower asm.js build, which is refused here).
 */
export function loadWasmSr25519Verify(): Promise<Sr25519Verify> {
  wasmReady ??= startWasm().catch((error) => {
    wasmReady = null;
    throw error;
  });
  return wasmReady;
}

async function startWasm(): Promise<Sr25519Verify> {
  const { verify, sign } = await startSr25519Wasm();
  wasmSign = sign;
  return verify;
}

/** The WebAssembly build's signing, once `loadWasmSr25519Verify` has started it; null before. */
export function startedWasmSr25519Sign(): Sr25519Sign | null {
  return wasmSign;
}

/**
 * The verifier the service uses: the WebAssembly build, about 2× the speed of `@scure/sr25519`
 * here (`deno task bench:sr25519`; figures in docs/signatures.md). Both are cross-verified in the
 * tests. Should the WebAssembly build fail to start, verification falls back to `@scure/sr25519`
 * (same answers, half the speed) and `log` gets a warning.
 */
export async function loadSr25519Verify(options: { log?: Logger } = {}): Promise<Sr25519Verify> {
  try {
    return await loadWasmSr25519Verify();
  } catch (error) {
    options.log?.({
      level: "warn",
      msg: "sr25519 WebAssembly unavailable: verifying with @scure/sr25519",
      error: error instanceof Error ? error.message : String(error),
    });
    return scureSr25519Verify;
  }
}

/**
 * The service's verifier, ready at once: `@scure/sr25519` until the WebAssembly build (loaded on
 * the first verification, not at start-up: a service, or a test, that never sees a signed request
 * never pays for it) is ready, then the WebAssembly build. Both give the same answers (cross-verified
 * in the tests). Should the WebAssembly build fail to start, verification stays on `@scure/sr25519`
 * and `log` gets a warning.
 */
export function lazySr25519Verify(options: { log?: Logger } = {}): Sr25519Verify {
  let wasm: Sr25519Verify | null = null;
  let started = false;
  return (signature, message, publicKey) => {
    if (wasm) return wasm(signature, message, publicKey);
    if (!started) {
      started = true;
      loadSr25519Verify(options).then((verify) => wasm = verify);
    }
    return scureSr25519Verify(signature, message, publicKey);
  };
}
