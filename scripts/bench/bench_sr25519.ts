/**
 * Benchmark: sr25519 verification in-process, `@scure/sr25519` (TypeScript) against
 * `@polkadot/wasm-crypto` (schnorrkel compiled to WebAssembly). Both verify the same signature of
 * the same canonical message `BENCH_VERIFIES` times per round (default 2000), in `BENCH_ROUNDS`
 * rounds (default 5) whose order alternates, so drift on a shared host hits both alike. Prints the
 * median time per verification of each, verifications per second, and the ratio. Exits 1 if either
 * implementation rejects the signature.
 */
import { hex } from "@scure/base";
import * as scure from "@scure/sr25519";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import {
  canonicalMessage,
  loadWasmSr25519Verify,
  scureSr25519Verify,
  SIGNATURE_DOMAINS,
  type Sr25519Verify,
} from "../../actors/validators/mod.ts";

const VERIFIES = Number(Deno.env.get("BENCH_VERIFIES") ?? 2000);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);

interface Subject {
  signature: Uint8Array;
  message: Uint8Array;
  publicKey: Uint8Array;
}

function subject(): Subject {
  const secret = scure.secretFromSeed(hex.decode("11".repeat(32)));
  const message = utf8ToBytes(canonicalMessage(SIGNATURE_DOMAINS.validator, {
    method: "POST",
    target: "/v1/validators/prediction",
    timestamp: "1763712000123",
    nonce: "bench-nonce-000000001",
    body: JSON.stringify({ agentPredictionId: "ap_bench", prediction: { schemaVersion: "1.0" } }),
    minerHotkey: null,
  }));
  return { signature: scure.sign(secret, message), message, publicKey: scure.getPublicKey(secret) };
}

/** Milliseconds for `VERIFIES` verifications. */
function timeRound(verify: Sr25519Verify, s: Subject): number {
  const started = performance.now();
  for (let i = 0; i < VERIFIES; i++) {
    if (!verify(s.signature, s.message, s.publicKey)) throw new Error("Signature rejected during the bench");
  }
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function main(): Promise<void> {
  const s = subject();
  const wasmSr25519Verify = await loadWasmSr25519Verify();
  const subjects: [string, Sr25519Verify][] = [["@scure/sr25519", scureSr25519Verify], [
    "@polkadot/wasm-crypto",
    wasmSr25519Verify,
  ]];
  for (const [, verify] of subjects) timeRound(verify, s); // warm-up (JIT, WebAssembly tiers)
  const times = new Map<string, number[]>(subjects.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? subjects : [...subjects].reverse();
    for (const [name, verify] of order) times.get(name)!.push(timeRound(verify, s));
  }
  console.log(`sr25519 verify, ${VERIFIES} verifications × ${ROUNDS} rounds (median round; best round)`);
  const perVerify = new Map<string, number>();
  for (const [name] of subjects) {
    const rounds = times.get(name)!;
    const us = (median(rounds) * 1000) / VERIFIES;
    const best = (Math.min(...rounds) * 1000) / VERIFIES;
    perVerify.set(name, us);
    const figures = `${us.toFixed(1).padStart(7)} µs/verify ${(1e6 / us).toFixed(0).padStart(6)} verify/s`;
    console.log(`  ${name.padEnd(22)} ${figures}; best ${best.toFixed(1)} µs`);
  }
  const ratio = perVerify.get("@scure/sr25519")! / perVerify.get("@polkadot/wasm-crypto")!;
  console.log(`  WebAssembly is ${ratio.toFixed(2)}× the speed of @scure/sr25519`);
}

if (import.meta.main) {
  try {
    await main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    Deno.exit(1);
  }
}
