import assert from "node:assert/strict";
import { longestCallMs, providerFailure, providerReason } from "../../actors/gateway/mod.ts";
import { UpstreamError } from "../../actors/kernel/mod.ts";

function statusError(status: number, body = "", retryAfterMs?: number): UpstreamError {
  return new UpstreamError("acme", {
    failure: "status",
    reason: `HTTP ${status}`,
    attempts: 1,
    status,
    body,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

Deno.test("each upstream status maps to the failure docs/gateway.md names", () => {
  const failures = [400, 401, 402, 403, 404, 405, 408, 409, 413, 415, 422, 429, 500, 502, 503, 529].map((
    status,
  ) => [status, providerFailure(statusError(status)).failure]);
  assert.deepEqual(failures, [
    [400, "request"],
    [401, "account"],
    [402, "account"],
    [403, "account"],
    [404, "request"],
    [405, "upstream"],
    [408, "timeout"],
    [409, "upstream"],
    [413, "request"],
    [415, "upstream"],
    [422, "request"],
    [429, "rate_limited"],
    [500, "upstream"],
    [502, "upstream"],
    [503, "upstream"],
    [529, "upstream"],
  ]);
});

Deno.test("a provider's Retry-After is passed on in whole seconds, at most 300", () => {
  const wait = (ms: number) => providerFailure(statusError(429, "", ms)).toServiceError().retryAfterSeconds;
  assert.equal(wait(2_500), 3);
  assert.equal(wait(0), 1);
  assert.equal(wait(3_600_000), 300);
});

Deno.test("the provider's reason is read from the error shapes vendors use", () => {
  assert.equal(providerReason('{"error":{"message":"bad model","type":"x"}}', 400), "bad model");
  assert.equal(
    providerReason('{"type":"error","error":{"type":"not_found_error","message":"model: x"}}', 404),
    "model: x",
  );
  assert.equal(
    providerReason('{"error":"model \\"llama9\\" not found, try pulling it first"}', 404),
    'model "llama9" not found, try pulling it first',
  );
  assert.equal(providerReason('{"detail":"Not Found"}', 404), "Not Found");
  assert.equal(providerReason('{"message":"max_tokens too large"}', 400), "max_tokens too large");
  assert.equal(providerReason("plain\ntext\u0000reason", 400), "plain text reason");
  assert.equal(providerReason("", 422), "HTTP 422");
  assert.equal(providerReason('{"error":{}}', 400), "HTTP 400");
  assert.equal(providerReason("x".repeat(1000), 400).length, 300);
});

Deno.test("an account failure keeps no part of the provider's body", () => {
  const error = providerFailure(
    statusError(401, '{"error":{"message":"Incorrect API key provided: sk-abc***xyz"}}'),
  );
  assert.equal(error.reason, "HTTP 401");
  assert.ok(!JSON.stringify(error.toServiceError().details).includes("sk-abc"));
});

Deno.test("the longest call is the provider's timeout and a second, covering every attempt and wait", () => {
  assert.equal(longestCallMs({ timeoutMs: 60_000 }), 61_000);
});
