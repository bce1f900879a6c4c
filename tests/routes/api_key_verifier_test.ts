import assert from "node:assert/strict";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { openTestService } from "../support/test_service.ts";
import { ADMIN_TOKEN, createOrg, errorCode, issueKey, keyInit, withCountUse } from "../support/access.ts";

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
