import assert from "node:assert/strict";
import { FailureBackoff } from "../../actors/runtime/mod.ts";

Deno.test("failure backoff waits the interval while runs succeed, and sooner, doubling, after failures", () => {
  const backoff = new FailureBackoff(300_000);
  assert.equal(backoff.nextMs(), 300_000);
  const waits = [1, 2, 3, 4, 5, 6].map(() => (backoff.failed(), backoff.nextMs()));
  assert.deepEqual(waits, [15_000, 30_000, 60_000, 120_000, 240_000, 300_000]);
  assert.equal(backoff.failures, 6);
  backoff.succeeded();
  assert.equal(backoff.failures, 0);
  assert.equal(backoff.nextMs(), 300_000);
});

Deno.test("failure backoff never starts above the interval", () => {
  const backoff = new FailureBackoff(5_000, { retryBaseMs: 15_000 });
  backoff.failed();
  assert.equal(backoff.nextMs(), 5_000);
});
