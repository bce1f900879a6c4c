import assert from "node:assert/strict";
import { errorCode } from "../support/access.ts";
import { ledgerSum } from "../support/ledger.ts";
import { ECHO_CALL, ECHO_COST, ECHO_HOLD, gatewayWorld, usageOf } from "./gateway_service.ts";

Deno.test("GET /v1/gateway/providers is public, lists the catalog, and is cacheable with an ETag", async () => {
  await using w = await gatewayWorld();
  const response = await w.service.request("/v1/gateway/providers");
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), {
    providers: [
      { id: "fake", models: ["gpt-test", "gpt-retired"], allowsAnyModel: false },
      { id: "echo", models: ["echo-1"], allowsAnyModel: false },
    ],
  });
  assert.equal(response.headers.get("cache-control"), "public, max-age=60");
  assert.equal(response.headers.get("content-type"), "application/json");
  const etag = response.headers.get("etag");
  assert.match(etag ?? "", /^"[0-9a-f]{24}"$/);
  const again = await w.service.request("/v1/gateway/providers", { headers: { "if-none-match": etag! } });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), "");
  // If-None-Match compares weakly (RFC 9110): a weak form of the tag, in a list, or `*` matches.
  for (const wanted of [`W/${etag}`, `"other", ${etag}`, ` W/"other" , W/${etag} `, "*"]) {
    const matched = await w.service.request("/v1/gateway/providers", {
      headers: { "if-none-match": wanted },
    });
    assert.equal(matched.status, 304, wanted);
    await matched.body?.cancel();
  }
  for (const wanted of ['"other"', `W/"other"`, etag!.slice(1, -1), `w/${etag}`]) {
    const stale = await w.service.request("/v1/gateway/providers", { headers: { "if-none-match": wanted } });
    assert.equal(stale.status, 200, wanted);
    await stale.body?.cancel();
  }
  const doc = await (await w.service.request("/openapi.json")).json();
  assert.ok(doc.paths["/v1/gateway/providers"]?.get, "declared in the OpenAPI document");
  assert.equal(doc.paths["/v1/gateway/providers"].get.security, undefined, "public");
  assert.deepEqual(doc.paths["/v1/gateway/completions"].post.security, [{ apiKey: ["gateway:write"] }]);
});

Deno.test("an echo completion answers the flat envelope, charges its usage, and reports the balance after", async () => {
  await using w = await gatewayWorld({ creditMicro: "1000" });
  const response = await w.complete(ECHO_CALL, { headers: { "x-request-id": "req-echo-0001" } });
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  assert.deepEqual(body, {
    provider: "echo",
    model: "echo-1",
    output: "Hello, gateway!",
    usage: { promptTokens: 4, completionTokens: 4, totalTokens: 8 },
    costMicro: String(ECHO_COST),
    providerCostMicro: String(ECHO_COST),
    markupBps: 0,
    balanceAfterMicro: "992",
  });
  assert.equal(response.headers.get("x-service-credits-remaining"), "992");
  assert.equal(response.headers.get("x-ratelimit-limit"), "1000");
  assert.equal(response.headers.get("x-ratelimit-remaining"), "999");
  assert.equal(await w.balance(), "992");
  const [usage] = await usageOf(w.service.request, w.orgId);
  assert.equal(usage?.amountMicro, "8");
  assert.equal(usage?.keyId, w.keyId);
  assert.equal(usage?.minerHotkey, null);
  assert.match(String(usage?.holdId), /^gw_req-echo-0001_[0-9a-f-]{36}$/);
  assert.deepEqual(usage?.metadata, {
    provider: "echo",
    model: "echo-1",
    promptTokens: 4,
    completionTokens: 4,
    totalTokens: 8,
    providerCostMicro: "8",
    costMicro: "8",
    holdMicro: String(ECHO_HOLD),
    markupBps: 0,
    basis: "usage",
    latencyMs: 0,
    outcome: "settled",
    requestId: "req-echo-0001",
  });
});

Deno.test("balanceAfterMicro and the header deduct the holds of other calls still in flight", async () => {
  await using w = await gatewayWorld({ creditMicro: "1000" });
  // Another call of the org is in flight: 300 held.
  await w.service.askOrg(w.orgId, { type: "reserve", amountMicro: 300n, holdId: "other-call" });
  const response = await w.complete(ECHO_CALL);
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  assert.equal(body.balanceAfterMicro, "692"); // 1000 − 8 charged − 300 held elsewhere
  assert.equal(response.headers.get("x-service-credits-remaining"), "692");
  assert.equal(await w.balance(), "692");
  const account = await w.service.storage.billing.getAccount(w.orgId);
  assert.deepEqual([account?.balanceMicro, account?.heldMicro], [992n, 300n]);
});

Deno.test("the same X-Request-Id sent twice gives two calls, each with its own hold and charge", async () => {
  await using w = await gatewayWorld({ creditMicro: "1000" });
  const headers = { "x-request-id": "client-chosen-id" };
  const [a, b] = await Promise.all([w.complete(ECHO_CALL, { headers }), w.complete(ECHO_CALL, { headers })]);
  assert.deepEqual([a.status, b.status], [200, 200]);
  const usage = await usageOf(w.service.request, w.orgId);
  assert.equal(usage.length, 2);
  assert.notEqual(usage[0]?.holdId, usage[1]?.holdId);
  assert.equal(await w.balance(), String(1000n - 2n * ECHO_COST));
  assert.equal(await ledgerSum(w.service.storage.billing, w.orgId), 1000n - 2n * ECHO_COST);
});

Deno.test("a completion needs the gateway:write scope and a valid key; every key answer has rate headers", async () => {
  await using w = await gatewayWorld({ key: { scopes: ["billing:read"] } });
  const refused = await w.complete(ECHO_CALL);
  assert.equal(refused.status, 403);
  assert.equal(refused.headers.get("x-ratelimit-limit"), "1000");
  assert.equal(await errorCode(refused), "insufficient_scope");
  const anonymous = await w.service.request("/v1/gateway/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(ECHO_CALL),
  });
  assert.equal(anonymous.status, 401);
  assert.equal(await errorCode(anonymous), "unauthenticated");
  assert.equal(await w.balance(), "1000000");
});

Deno.test("over the key's rate a completion is 429 with Retry-After and nothing is held or charged", async () => {
  await using w = await gatewayWorld({ creditMicro: "1000", key: { rateLimitRpm: 1 } });
  assert.equal((await w.complete(ECHO_CALL)).status, 200);
  const limited = await w.complete(ECHO_CALL);
  assert.equal(limited.status, 429);
  assert.match(limited.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/);
  assert.equal(limited.headers.get("x-ratelimit-remaining"), "0");
  assert.equal(await errorCode(limited), "rate_limited");
  assert.equal((await usageOf(w.service.request, w.orgId)).length, 1);
  const account = await w.service.storage.billing.getAccount(w.orgId);
  assert.deepEqual([account?.balanceMicro, account?.heldMicro], [1000n - ECHO_COST, 0n]);
});

Deno.test("a completion whose hold does not fit is 402 and reaches no provider", async () => {
  await using w = await gatewayWorld({ creditMicro: String(ECHO_HOLD - 1n) });
  const response = await w.complete(ECHO_CALL);
  assert.equal(response.status, 402);
  const body = await response.json();
  assert.equal(body.error.code, "insufficient_credits");
  assert.deepEqual(body.error.details, {
    requestedMicro: String(ECHO_HOLD),
    availableMicro: String(ECHO_HOLD - 1n),
  });
  const fake = await w.complete({ ...ECHO_CALL, provider: "fake", model: "gpt-test" });
  assert.equal(fake.status, 402);
  assert.equal(w.fake.requests.length, 0, "the provider is never called");
  assert.deepEqual(await w.service.storage.billing.listHolds(w.orgId), []);
  assert.deepEqual(await usageOf(w.service.request, w.orgId), []);
});
