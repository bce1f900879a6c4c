import assert from "node:assert/strict";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { openTestService } from "../support/test_service.ts";
import {
  addCredits,
  ADMIN_TOKEN,
  adminInit,
  createOrg,
  errorCode,
  issueKey,
  keyInit,
  overriding,
  withCountUse,
} from "../support/access.ts";

/**
 * Storage where, while `changes.left > 0`, the key changes (a version bump that keeps its secret
 * valid, as another instance's write would) just before each counting step, so that step fails.
 */
function changingKeys(storage: Storage, changes: { left: number }): Storage {
  return withCountUse(storage, (countUse) => async (keyId, use) => {
    const current = await storage.apiKeys.get(keyId);
    if (changes.left > 0 && current) {
      changes.left--;
      await storage.apiKeys.update(current, current.version);
    }
    return await countUse(keyId, use);
  });
}

async function serviceWithChangingKeys(changes: { left: number }) {
  const storage = changingKeys(await openKvStorage(":memory:"), changes);
  const service = await openTestService({ storage, env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const { apiKey } = await issueKey(service.request, await createOrg(service.request), { rateLimitRpm: 5 });
  return { service, apiKey };
}

Deno.test("a key that changes three times during one check but stays valid is admitted after re-reads", async () => {
  const changes = { left: 0 };
  const { service, apiKey } = await serviceWithChangingKeys(changes);
  await using _ = service;
  changes.left = 3;
  const response = await service.request("/v1/credits/balance", keyInit(apiKey));
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("x-ratelimit-remaining"), "4", "refused steps counted nothing");
  assert.deepEqual(await response.json(), { balanceMicro: "0", lastUsageAt: null });
  assert.equal(changes.left, 0);
});

Deno.test("a remembered key that changes during its check is read again: admitted while valid, 401 when it keeps changing", async () => {
  const changes = { left: 0 };
  const { service, apiKey } = await serviceWithChangingKeys(changes);
  await using _ = service;
  assert.equal((await service.request("/v1/credits/balance", keyInit(apiKey))).status, 200);
  changes.left = 3;
  const admitted = await service.request("/v1/credits/balance", keyInit(apiKey));
  assert.equal(admitted.status, 200, await admitted.clone().text());
  assert.equal(admitted.headers.get("x-ratelimit-remaining"), "3", "refused steps counted nothing");
  assert.equal(changes.left, 0);
  changes.left = Infinity;
  const refused = await service.request("/v1/credits/balance", keyInit(apiKey));
  assert.equal(refused.status, 401);
  assert.equal(await errorCode(refused), "unauthenticated");
});

Deno.test("a key that keeps changing through every attempt gets 401, never a 409", async () => {
  const changes = { left: 0 };
  const { service, apiKey } = await serviceWithChangingKeys(changes);
  await using _ = service;
  changes.left = Infinity;
  const response = await service.request("/v1/credits/balance", keyInit(apiKey));
  assert.equal(response.status, 401);
  assert.equal(await errorCode(response), "unauthenticated");
  changes.left = 0;
  assert.equal((await service.request("/v1/credits/balance", keyInit(apiKey))).status, 200);
});

for (const remember of ["1", "0"]) {
  Deno.test(`with FGW_REMEMBER_KEY_SECRETS=${remember}: another secret of a verified key id gets 401, a rotation refuses the verified one at once`, async () => {
    const env = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_REMEMBER_KEY_SECRETS: remember };
    await using service = await openTestService({ env });
    const issued = await issueKey(service.request, await createOrg(service.request));
    assert.equal((await service.request("/v1/credits/balance", keyInit(issued.apiKey))).status, 200);
    const secret = issued.apiKey.slice(-43);
    const other = issued.apiKey.slice(0, -43) + (secret[0] === "A" ? "B" : "A") + secret.slice(1);
    const forged = await service.request("/v1/credits/balance", keyInit(other));
    assert.equal(forged.status, 401);
    assert.equal(await errorCode(forged), "unauthenticated");
    assert.equal((await service.request("/v1/credits/balance", keyInit(issued.apiKey))).status, 200);
    const rotated = await service.request(`/admin/v1/keys/${issued.key.keyId}/rotate`, adminInit("POST"));
    const { apiKey } = await rotated.json();
    assert.equal((await service.request("/v1/credits/balance", keyInit(issued.apiKey))).status, 401);
    assert.equal((await service.request("/v1/credits/balance", keyInit(apiKey))).status, 200);
    assert.equal((await service.request("/v1/credits/balance", keyInit(issued.apiKey))).status, 401);
  });
}

Deno.test("the balance comes from the step that admitted the request: no separate read, none sent to a refused key", async () => {
  const real = await openKvStorage(":memory:");
  const accountReads = { count: 0 };
  const getAccount = (orgId: string) => {
    accountReads.count++;
    return real.billing.getAccount(orgId);
  };
  const storage = { ...real, billing: overriding(real.billing, { getAccount }) };
  await using service = await openTestService({ storage, env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const orgId = await createOrg(service.request);
  const reader = await issueKey(service.request, orgId);
  await addCredits(service.request, orgId, "2500000", "top-up-1");
  accountReads.count = 0;
  const read = await service.request("/v1/credits/balance", keyInit(reader.apiKey));
  assert.deepEqual(await read.json(), { balanceMicro: "2500000", lastUsageAt: null });
  assert.equal(accountReads.count, 0, "the counting step read the balance; nothing else did");
  // Revoked behind this instance's back: the remembered record still matches the secret, but the
  // counting step refuses the key, and nothing of the balance is sent.
  const stored = (await storage.apiKeys.get(reader.key.keyId))!;
  await storage.apiKeys.update({ ...stored, revokedAt: "2026-01-01T00:00:00.000Z" }, stored.version);
  const refused = await service.request("/v1/credits/balance", keyInit(reader.apiKey));
  assert.equal(refused.status, 401);
  assert.deepEqual(Object.keys(await refused.json()).sort(), ["error", "requestId"]);
});
