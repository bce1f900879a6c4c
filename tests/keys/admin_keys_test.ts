import assert from "node:assert/strict";
import { openTestService, type TestService } from "../support/test_service.ts";
import {
  ADMIN_TOKEN,
  adminInit,
  errorCode,
  HOTKEY_A,
  HOTKEY_B,
  issueKey,
  keyInit,
} from "../support/access.ts";

async function serviceWithOrg(env: Record<string, string> = {}): Promise<TestService> {
  const service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN, ...env } });
  await service.storage.orgs.create({ id: "org_a", name: "Acme", createdAtMs: service.clock.now() });
  return service;
}

Deno.test("admin API answers 404 when FGW_ADMIN_TOKEN is unset", async () => {
  await using service = await openTestService();
  const response = await service.request("/admin/v1/orgs/org_a/keys", adminInit("GET"));
  assert.equal(response.status, 404);
  assert.equal(await errorCode(response), "not_found");
});

Deno.test("admin API answers 401 without the admin token or with a wrong one", async () => {
  await using service = await serviceWithOrg();
  for (
    const init of [{}, { headers: { authorization: "Bearer wrong-token-0123456789" } }, {
      headers: { authorization: `Basic ${ADMIN_TOKEN}` },
    }]
  ) {
    const response = await service.request("/admin/v1/orgs/org_a/keys", init);
    assert.equal(response.status, 401);
    assert.equal(await errorCode(response), "unauthenticated");
  }
});

Deno.test("issuing a key returns the full key once and lists it without secrets", async () => {
  await using service = await serviceWithOrg();
  await service.storage.orgs.registerMiner("org_a", HOTKEY_A, {
    atMs: service.clock.now(),
    makeDefault: false,
  });
  const issued = await issueKey(service.request, "org_a", {
    name: "ci",
    scopes: ["billing:read", "gateway:write", "billing:read"],
    rateLimitRpm: 120,
    pinnedMinerHotkey: HOTKEY_A,
    expiresAt: "2027-01-01T00:00:00+00:00",
  });
  assert.match(issued.apiKey, /^fgw_[0-9a-f]{24}_[A-Za-z0-9_-]{43}$/);
  assert.ok(issued.apiKey.startsWith(`fgw_${issued.key.keyId}_`));
  assert.deepEqual(issued.key, {
    keyId: issued.key.keyId,
    orgId: "org_a",
    name: "ci",
    scopes: ["billing:read", "gateway:write"],
    rateLimitRpm: 120,
    pinnedMinerHotkey: HOTKEY_A,
    expiresAt: "2027-01-01T00:00:00.000Z",
    createdAt: "2026-11-20T12:00:00.000Z",
  });
  const listed = await (await service.request("/admin/v1/orgs/org_a/keys", adminInit("GET"))).json();
  assert.deepEqual(listed, { items: [issued.key] });
  const shown = await (await service.request(`/admin/v1/keys/${issued.key.keyId}`, adminInit("GET"))).json();
  assert.deepEqual(shown, { key: issued.key });
  assert.ok(!JSON.stringify(listed).includes(issued.apiKey.slice(-43)));
});

Deno.test("the key's secret is nowhere in storage, only its hash", async () => {
  await using service = await serviceWithOrg();
  const issued = await issueKey(service.request, "org_a");
  const secret = issued.apiKey.slice(-43);
  const stored = await service.storage.apiKeys.get(issued.key.keyId);
  assert.ok(stored);
  assert.match(stored.secretHash, /^[0-9a-f]{64}$/);
  assert.ok(!JSON.stringify(stored).includes(secret));
  assert.ok(!JSON.stringify(await service.storage.apiKeys.listByOrg("org_a")).includes(secret));
});

Deno.test("issuing a key for an unknown org answers 404", async () => {
  await using service = await serviceWithOrg();
  const response = await service.request(
    "/admin/v1/orgs/org_missing/keys",
    adminInit("POST", { name: "k", scopes: ["billing:read"], rateLimitRpm: 10 }),
  );
  assert.equal(response.status, 404);
  assert.equal(await errorCode(response), "not_found");
});

Deno.test("bad key terms answer 400 invalid_request naming the field", async () => {
  await using service = await serviceWithOrg();
  await service.storage.orgs.registerMiner("org_a", HOTKEY_A, {
    atMs: service.clock.now(),
    makeDefault: false,
  });
  const good = { name: "k", scopes: ["billing:read"], rateLimitRpm: 10 };
  const cases: [Record<string, unknown>, string][] = [
    [{ ...good, scopes: ["billing:read", "admin:all"] }, "scopes.1"],
    [{ ...good, scopes: [] }, "scopes"],
    [{ ...good, rateLimitRpm: 0 }, "rateLimitRpm"],
    [{ ...good, rateLimitRpm: 1.5 }, "rateLimitRpm"],
    [{ ...good, rateLimitRpm: "60" }, "rateLimitRpm"],
    [{ ...good, name: "" }, "name"],
    [{ ...good, pinnedMinerHotkey: "5NotAnAddress" }, "pinnedMinerHotkey"],
    [{ ...good, pinnedMinerHotkey: HOTKEY_B }, "pinnedMinerHotkey"],
    [{ ...good, expiresAt: "tomorrow" }, "expiresAt"],
    [{ ...good, expiresAt: "2020-01-01T00:00:00Z" }, "expiresAt"],
    [{ ...good, extra: true }, "extra"],
  ];
  for (const [body, field] of cases) {
    const response = await service.request("/admin/v1/orgs/org_a/keys", adminInit("POST", body));
    const json = await response.json();
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.equal(json.error.code, "invalid_request");
    const fields = json.error.details.fields.map((f: { field: string }) => f.field);
    assert.ok(fields.includes(field), `${JSON.stringify(body)} → ${JSON.stringify(fields)}`);
  }
});

Deno.test("admin bodies: malformed JSON 400, wrong content type 415, oversized 413", async () => {
  await using service = await serviceWithOrg();
  const path = "/admin/v1/orgs/org_a/keys";
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const malformed = await service.request(path, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: "{not json",
  });
  assert.equal(malformed.status, 400);
  assert.equal(await errorCode(malformed), "invalid_request");
  const text = await service.request(path, {
    method: "POST",
    headers: { ...auth, "content-type": "text/plain" },
    body: "{}",
  });
  assert.equal(text.status, 415);
  assert.equal(await errorCode(text), "unsupported_media_type");
  const huge = await service.request(path, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ name: "x".repeat(70_000), scopes: ["billing:read"], rateLimitRpm: 1 }),
  });
  assert.equal(huge.status, 413);
  assert.equal(await errorCode(huge), "payload_too_large");
});

Deno.test("rotate gives a new key and the old one fails at once", async () => {
  await using service = await serviceWithOrg();
  const issued = await issueKey(service.request, "org_a");
  const rotated = await service.request(`/admin/v1/keys/${issued.key.keyId}/rotate`, adminInit("POST"));
  assert.equal(rotated.status, 200);
  const body = await rotated.json();
  assert.notEqual(body.apiKey, issued.apiKey);
  assert.ok(body.apiKey.startsWith(`fgw_${issued.key.keyId}_`));
  const old = await service.request("/v1/credits/balance", keyInit(issued.apiKey));
  assert.equal(old.status, 401);
  assert.equal(await errorCode(old), "unauthenticated");
  const fresh = await service.request("/v1/credits/balance", keyInit(body.apiKey));
  assert.equal(fresh.status, 200);
  assert.deepEqual(await fresh.json(), { balanceMicro: "0", lastUsageAt: null });
});

Deno.test("revoke is idempotent, keeps the key listed, and rotate of a revoked key is a conflict", async () => {
  await using service = await serviceWithOrg();
  const issued = await issueKey(service.request, "org_a");
  const first = await (await service.request(`/admin/v1/keys/${issued.key.keyId}/revoke`, adminInit("POST")))
    .json();
  assert.equal(first.key.revokedAt, "2026-11-20T12:00:00.000Z");
  service.clock.advance(1_000);
  const again = await (await service.request(`/admin/v1/keys/${issued.key.keyId}/revoke`, adminInit("POST")))
    .json();
  assert.deepEqual(again, first);
  const rotate = await service.request(`/admin/v1/keys/${issued.key.keyId}/rotate`, adminInit("POST"));
  assert.equal(rotate.status, 409);
  assert.equal(await errorCode(rotate), "conflict");
});

Deno.test("delete removes the key (204), then 404 for every key operation", async () => {
  await using service = await serviceWithOrg();
  const issued = await issueKey(service.request, "org_a");
  const deleted = await service.request(`/admin/v1/keys/${issued.key.keyId}`, adminInit("DELETE"));
  assert.equal(deleted.status, 204);
  assert.deepEqual(await (await service.request("/admin/v1/orgs/org_a/keys", adminInit("GET"))).json(), {
    items: [],
  });
  for (
    const [method, suffix] of [["DELETE", ""], ["POST", "/rotate"], ["POST", "/revoke"], ["GET", ""]] as const
  ) {
    const response = await service.request(`/admin/v1/keys/${issued.key.keyId}${suffix}`, adminInit(method));
    assert.equal(response.status, 404, `${method} ${suffix}`);
    assert.equal(await errorCode(response), "not_found");
  }
});
