/// <reference lib="deno.worker" />
/**
 * A verification worker of `VerifyPool`: starts the sr25519 WebAssembly build, says `ready`, then
 * answers each batch of jobs with one verdict per job, in order. A build that cannot start is an
 * uncaught error, which the pool sees as the worker's `error` event.
 */
import { startSr25519Wasm } from "./sr25519_wasm.ts";
import type { VerifyBatch } from "./verify_pool.ts";

const { verify } = await startSr25519Wasm();

self.onmessage = (event: MessageEvent<VerifyBatch>) => {
  self.postMessage(event.data.map((job) => verify(job.signature, job.message, job.publicKey)));
};
self.postMessage("ready");
