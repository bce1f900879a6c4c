/**
 * Run by lazy_verify_test.ts in a process of its own (the suite's other tests load the
 * WebAssembly in theirs): opens a service, answers one request, and prints whether the sr25519
 * WebAssembly build was started.
 */
import { startedWasmSr25519Sign } from "../../actors/validators/mod.ts";
import { openTestService } from "../support/test_service.ts";

await using service = await openTestService();
const status = (await service.request("/healthz")).status;
console.log(JSON.stringify({ status, wasmStarted: startedWasmSr25519Sign() !== null }));
