/**
 * The verify bound of `bench:leases`: the in-process time of the two signature verifications a
 * lease + submit cycle needs (a bodiless lease request, a submission with a small trace), over
 * the service's verifier; the bound is 1 ÷ that time, in cycles per second on one core.
 */
import { utf8ToBytes } from "@noble/hashes/utils.js";
import * as scure from "@scure/sr25519";
import {
  canonicalMessage,
  SIGNATURE_DOMAINS,
  type Signer,
  type Sr25519Verify,
} from "../../../actors/validators/mod.ts";

const ITERATIONS = 1_000;

function signed(signer: Signer, method: string, target: string, body: string) {
  const message = utf8ToBytes(canonicalMessage(SIGNATURE_DOMAINS.validator, {
    method,
    target,
    timestamp: String(Date.now()),
    nonce: "0123456789abcdef0123456789abcdef",
    body,
    minerHotkey: null,
  }));
  return { message, signature: scure.sign(signer.secretKey, message) };
}

/** Cycles per second two verifications allow (median of three timed loops). */
export function benchVerifyBound(verify: Sr25519Verify, signer: Signer): number {
  const body = JSON.stringify({
    agentPredictionId: "ap_0123456789abcdef0123456789abcdef",
    trace: "x".repeat(2_000),
  });
  const requests = [
    signed(signer, "GET", "/v1/validators/agent-and-event", ""),
    signed(signer, "POST", "/v1/validators/prediction", body),
  ];
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    for (let i = 0; i < ITERATIONS; i++) {
      for (const { message, signature } of requests) {
        if (!verify(signature, message, signer.publicKey)) {
          throw new Error("verify bound: a signature failed");
        }
      }
    }
    times.push((performance.now() - started) / ITERATIONS);
  }
  const msPerCycle = times.toSorted((a, b) => a - b)[1]!;
  return 1_000 / msPerCycle;
}
