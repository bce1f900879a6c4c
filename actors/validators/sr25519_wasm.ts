/**
 * The schnorrkel reference implementation compiled to WebAssembly (`@polkadot/wasm-crypto`),
 * started from the npm package itself (no network). Kept apart from `sr25519.ts` so that a
 * verification worker (`verify_worker.ts`) loads this and nothing else.
 */

/** Verifies a 64-byte signature of `message` by a 32-byte public key; never throws. */
export type WasmVerify = (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean;

/** Signs `message` with a 64-byte secret key and its public key. */
export type WasmSign = (publicKey: Uint8Array, secretKey: Uint8Array, message: Uint8Array) => Uint8Array;

/**
 * Decodes, inflates and instantiates the WebAssembly build (about 65 ms of CPU). Rejects when it
 * cannot start: the package would otherwise fall back to its much slower asm.js build.
 */
export async function startSr25519Wasm(): Promise<{ verify: WasmVerify; sign: WasmSign }> {
  const wasm = await import("@polkadot/wasm-crypto");
  if (!(await wasm.waitReady()) || wasm.bridge.type !== "wasm") {
    throw new Error(`Cannot start sr25519 WebAssembly: loaded ${wasm.bridge.type ?? "nothing"}`);
  }
  const verify: WasmVerify = (signature, message, publicKey) => {
    try {
      return wasm.sr25519Verify(signature, message, publicKey);
    } catch {
      return false;
    }
  };
  return { verify, sign: wasm.sr25519Sign };
}
