import assert from "node:assert/strict";
import { meanInterval } from "../../actors/scoring/mod.ts";

Deno.test("the 95 % interval of a mean is mean ± 1.96·sd/√n with the sample sd, from five values on", () => {
  assert.equal(meanInterval([0.1, 0.2, 0.3, 0.4]), null);
  const interval = meanInterval([0.1, 0.2, 0.3, 0.4, 0.5])!;
  // mean 0.3; sample variance 0.025; sd 0.158114; half-width 1.96 × 0.158114 / √5 = 0.138590
  assert.equal(interval.n, 5);
  assert.ok(Math.abs(interval.mean - 0.3) < 1e-12);
  assert.ok(Math.abs(interval.high - interval.mean - 0.13859) < 1e-5);
  assert.ok(Math.abs(interval.mean - interval.low - 0.13859) < 1e-5);
  const flat = meanInterval([0.2, 0.2, 0.2, 0.2, 0.2])!;
  assert.equal(flat.low, flat.high);
});
