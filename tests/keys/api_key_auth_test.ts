import assert from "node:assert/strict";
import { openTestService, TEST_START_MS, type TestService } from "../support/test_service.ts";
import { ADMIN_TOKEN, adminInit, createOrg, errorCode, issueKey, keyInit } from "../support/access.ts";

const BALANCE = "/v1/credits/balance";

async function serviceWithOrg(): Promise<{ service: TestService; orgId: string }> {
  const service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  return { service, orgId: await createOrg(service.request) };
}

async function assertUnauthenticated(response: Response): Promise<void> {
  assert.equal(response.status, 401);
  assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer/);
  assert.equal(response.headers.get("x-ratelimit-limit"), null);
  assert.equal(await errorCode(response), "unauthenticated");
}

Deno.test("a key route answers 401 for a missing, malformed, unknown or wrong-secret key", async () => {
  const { service, orgId } = await serviceWithOrg();
  await using _ = service;
  const { apiKey, key } = await issueKey(service.request, orgId);
  const wrongSecret = `fgw_${key.keyId}_${"A".repeat(43)}`;
  const unknown = apiKey.replace(key.keyId, "0".repeat(24));
  const headers = [
    {},
    { authorization: "Bearer" },
    { authorization: `Basic ${apiKey}` },
    { authorization: "Bearer sk-something-else" },
    { authorization: `Bearer ${apiKey}x` },
    { authorization: `Bearer ${apiKey.slice(0, -1)}` },
    { authorization: `Bearer ${wrongSecret}` },
    { authorization: `Bearer ${unknown}` },
  ];
  for (const h of headers) await assertUnauthenticated(await service.request(BALANCE, { headers: h }));
  assert.equal((await service.request(BALANCE, keyInit(apiKey))).status, 200);
});

Deno.test("a revoked, deleted or expired key fails 401 at once", async () => {
  const { service, orgId } = await serviceWithOrg();
  await using _ = service;
  const revoked = await issueKey(service.request, orgId);
  const deleted = await issueKey(service.request, orgId);
  const expiring = await issueKey(service.request, orgId, {
    expiresAt: new Date(TEST_START_MS + 60_000).toISOString(),
  });
  for (const k of [revoked, deleted, expiring]) {
    assert.equal((await service.request(BALANCE, keyInit(k.apiKey))).status, 200);
  }
  await service.request(`/admin/v1/keys/${revoked.key.keyId}/revoke`, adminInit("POST"));
  await service.request(`/admin/v1/keys/${deleted.key.keyId}`, adminInit("DELETE"));
  await assertUnauthenticated(await service.request(BALANCE, keyInit(revoked.apiKey)));
  await assertUnauthenticated(await service.request(BALANCE, keyInit(deleted.apiKey)));
  service.clock.advance(59_999);
  assert.equal((await service.request(BALANCE, keyInit(expiring.apiKey))).status, 200);
  service.clock.advance(1);
  await assertUnauthenticated(await service.request(BALANCE, keyInit(expiring.apiKey)));
});

Deno.test("a key without the route's scope gets 403 insufficient_scope (with rate-limit headers)", async () => {
  const { service, orgId } = await serviceWithOrg();
  await using _ = service;
  const { apiKey } = await issueKey(service.request, orgId, {
    scopes: ["gateway:write", "history:read"],
    rateLimitRpm: 5,
  });
  const response = await service.request(BALANCE, keyInit(apiKey));
  assert.equal(response.status, 403);
  assert.equal(response.headers.get("x-ratelimit-limit"), "5");
  assert.equal(response.headers.get("x-ratelimit-remaining"), "4");
  const body = await response.json();
  assert.equal(body.error.code, "insufficient_scope");
  assert.deepEqual(body.error.details, { requiredScope: "billing:read" });
});

Deno.test("signature headers on a key route get 403 wrong_auth_scheme, with or without a key", async () => {
  const { service, orgId } = await serviceWithOrg();
  await using _ = service;
  const { apiKey } = await issueKey(service.request, orgId);
  for (
    const name of [
      "x-validator-signature",
      "x-validator-hotkey",
      "x-miner-signature",
      "x-miner-nonce",
      "x-miner-hotkey",
    ]
  ) {
    for (const init of [keyInit(apiKey, { [name]: "0xabc" }), { headers: { [name]: "0xabc" } }]) {
      const response = await service.request(BALANCE, init);
      assert.equal(response.status, 403, name);
      assert.equal(await errorCode(response), "wrong_auth_scheme");
    }
  }
});

Deno.test("every authenticated answer carries X-RateLimit headers; over rpm is 429 with Retry-After", async () => {
  const { service, orgId } = await serviceWithOrg();
  await using _ = service;
  service.clock.set(TEST_START_MS + 20_500);
  const { apiKey } = await issueKey(service.request, orgId, { rateLimitRpm: 3 });
  for (const remaining of ["2", "1", "0"]) {
    const response = await service.request(BALANCE, keyInit(apiKey));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-ratelimit-limit"), "3");
    assert.equal(response.headers.get("x-ratelimit-remaining"), remaining);
    assert.equal(response.headers.get("retry-after"), null);
  }
  const limited = await service.request(BALANCE, keyInit(apiKey));
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("retry-after"), "40");
  assert.equal(limited.headers.get("x-ratelimit-limit"), "3");
  assert.equal(limited.headers.get("x-ratelimit-remaining"), "0");
  const body = await limited.json();
  assert.equal(body.error.code, "rate_limited");
  assert.equal(body.error.details.windowResetsAt, "2026-11-20T12:01:00.000Z");
  service.clock.advance(39_500);
  const next = await service.request(BALANCE, keyInit(apiKey));
  assert.equal(next.status, 200);
  assert.equal(next.headers.get("x-ratelimit-remaining"), "2");
});

Deno.test("keys are limited separately and a failed authentication does not spend a key's allowance", async () => {
  const { service, orgId } = await serviceWithOrg();
  await using _ = service;
  const a = await issueKey(service.request, orgId, { rateLimitRpm: 1 });
  const b = await issueKey(service.request, orgId, { rateLimitRpm: 1 });
  const forged = `fgw_${a.key.keyId}_${"B".repeat(43)}`;
  for (let i = 0; i < 3; i++) await assertUnauthenticated(await service.request(BALANCE, keyInit(forged)));
  assert.equal((await service.request(BALANCE, keyInit(a.apiKey))).status, 200);
  assert.equal((await service.request(BALANCE, keyInit(b.apiKey))).status, 200);
  assert.equal((await service.request(BALANCE, keyInit(a.apiKey))).status, 429);
});

Deno.test("first use in a window records the key's lastUsedAt", async () => {
  const { service, orgId } = await serviceWithOrg();
  await using _ = service;
  const { apiKey, key } = await issueKey(service.request, orgId);
  service.clock.advance(5_000);
  await service.request(BALANCE, keyInit(apiKey));
  const shown = await (await service.request(`/admin/v1/keys/${key.keyId}`, adminInit("GET"))).json();
  assert.equal(shown.key.lastUsedAt, "2026-11-20T12:00:05.000Z");
});

Deno.test("concurrent requests of one key on one instance each get their own place in the window", async () => {
  const { service, orgId } = await serviceWithOrg();
  await using _ = service;
  const { apiKey } = await issueKey(service.request, orgId, { rateLimitRpm: 10 });
  const responses = await Promise.all(
    Array.from({ length: 30 }, () => service.request(BALANCE, keyInit(apiKey))),
  );
  assert.equal(responses.filter((r) => r.status === 200).length, 10);
  assert.equal(responses.filter((r) => r.status === 429).length, 20);
  const remaining = responses.filter((r) => r.status === 200).map((r) =>
    Number(r.headers.get("x-ratelimit-remaining"))
  );
  assert.deepEqual(remaining.toSorted((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  await Promise.all(responses.map((r) => r.body?.cancel()));
});
