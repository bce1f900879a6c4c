/**
 * Runs the fake gateway validator route (`fake_validator_gateway.ts`) in its own process, checking
 * signatures with the WebAssembly verifier; prints its base URL. SIGTERM stops it.
 */
import { loadWasmSr25519Verify } from "../../actors/validators/mod.ts";
import { startFakeValidatorGateway } from "./fake_validator_gateway.ts";

if (import.meta.main) {
  const fake = startFakeValidatorGateway({ verify: await loadWasmSr25519Verify() });
  console.log(fake.base);
  Deno.addSignalListener("SIGTERM", () => fake.close().then(() => Deno.exit(0)));
}
