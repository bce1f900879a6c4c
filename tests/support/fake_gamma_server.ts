/** Runs a fake Gamma serving `count` generated markets in its own process; prints its URL. */
import { generateGammaMarkets, startFakeGamma } from "./fake_gamma.ts";

if (import.meta.main) {
  const count = Number(Deno.args[0] ?? 50_000);
  const nowMs = Number(Deno.args[1] ?? Date.now());
  const gamma = startFakeGamma(generateGammaMarkets(count, { seed: 1, nowMs }));
  console.log(gamma.url);
  Deno.addSignalListener("SIGTERM", () => gamma.close().then(() => Deno.exit(0)));
}
