import assert from "node:assert/strict";
import { gatewayTimingProblems, parseProviderCatalog, ProviderCatalog } from "../../actors/gateway/mod.ts";

function catalogWithTimeouts(...timeouts: number[]): ProviderCatalog {
  const providers = timeouts.map((timeoutMs, i) => ({
    id: `p${i}`,
    kind: "openai",
    baseUrl: "http://127.0.0.1:9",
    timeoutMs,
    models: [{ id: "m", inputMicroPerMTok: "1", outputMicroPerMTok: "1" }],
  }));
  return parseProviderCatalog(JSON.stringify({ providers: [{ id: "echo", kind: "echo" }, ...providers] }), {
    path: "p.json",
    env: {},
  });
}

Deno.test("the echo provider alone needs nothing of the hold TTL or the shutdown grace", () => {
  assert.deepEqual(
    gatewayTimingProblems(ProviderCatalog.builtIn(), { holdTtlMs: 1, shutdownGraceMs: 0 }),
    [],
  );
});

Deno.test("the hold TTL must exceed, and the grace cover, the slowest provider's call and its settle", () => {
  const catalog = catalogWithTimeouts(30_000, 60_000); // needs 60,000 + 1,000 + 10,000 = 71,000 ms
  assert.deepEqual(gatewayTimingProblems(catalog, { holdTtlMs: 71_001, shutdownGraceMs: 71_000 }), []);
  const problems = gatewayTimingProblems(catalog, { holdTtlMs: 71_000, shutdownGraceMs: 10_000 });
  assert.equal(problems.length, 2);
  assert.match(
    problems[0]!,
    /^FGW_HOLD_TTL_MS \(71000\) must exceed the longest provider call \(61000 ms, provider "p1"/,
  );
  assert.match(problems[1]!, /^FGW_SHUTDOWN_GRACE_MS \(10000\) must cover .* = 71000 ms/);
});
