import * as scure from "@scure/sr25519";
import type { Logger } from "../kernel/mod.ts";
import { bridge, sr25519Verify as wasmVerify, waitReady } from "@polkadot/wasm-crypto";

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

let wasmReady: Promise<Sr25519Verify> | null = null;

/**
 * The schnorrkel reference implementation compiled to WebAssembly (`@polkadot/wasm-crypto`),
 * loaded from the npm package itself (no network). The first call instantiates the module;
 * later calls share it. Rejects when the WebAssembly build cannot start (the package would
 * otherwise fall back to its much slower asm.js build, which is refused here).
 */
export function loadWasmSr25519Verify(): Promise<Sr25519Verify> {
  wasmReady ??= startWasm();
  return wasmReady;
}

async function startWasm(): Promise<Sr25519Verify> {
  if (!(await waitReady()) || bridge.type !== "wasm") {
    wasmReady = null;
    throw new Error(`Cannot start sr25519 WebAssembly: loaded ${bridge.type ?? "nothing"}`);
  }
  return (signature, message, publicKey) => {
    try {
      return wasmVerify(signature, message, publicKey);
    } catch {
      return false;
    }
  };
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
