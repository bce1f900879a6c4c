import assert from "node:assert/strict";
import { openTestService } from "../support/test_service.ts";
import { addCredits, ADMIN_TOKEN, createOrg, issueKey, keyInit } from "../support/access.ts";

Deno.test("GET /v1/credits/balance returns the key's org balance as a decimal string", async () => {
  await using service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const orgA = await createOrg(service.request, "A");
  const orgB = await createOrg(service.request, "B");
  const keyA = await issueKey(service.request, orgA);
  const keyB = await issueKey(service.request, orgB);
  const fresh = await service.request("/v1/credits/balance", keyInit(keyA.apiKey));
  assert.equal(fresh.status, 200);
  assert.deepEqual(await fresh.json(), { balanceMicro: "0", lastUsageAt: null });
  await addCredits(service.request, orgA, "9007199254740993", "top-up-1");
  await addCredits(service.request, orgB, "1500000", "top-up-1");
  const a = await (await service.request("/v1/credits/balance", keyInit(keyA.apiKey))).json();
  const b = await (await service.request("/v1/credits/balance", keyInit(keyB.apiKey))).json();
  assert.deepEqual(a, { balanceMicro: "9007199254740993", lastUsageAt: null });
  assert.deepEqual(b, { balanceMicro: "1500000", lastUsageAt: null });
});

Deno.test("balanceMicro is what can be spent now (balance minus holds); lastUsageAt follows settlement", async () => {
  await using service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const orgId = await createOrg(service.request);
  const { apiKey } = await issueKey(service.request, orgId);
  await addCredits(service.request, orgId, "1000000", "top-up-1");
  const hold = await service.askOrg(orgId, { type: "reserve", amountMicro: 300_000n });
  const held = await (await service.request("/v1/credits/balance", keyInit(apiKey))).json();
  assert.deepEqual(held, { balanceMicro: "700000", lastUsageAt: null });
  service.clock.advance(2_000);
  await service.askOrg(orgId, {
    type: "settle",
    holdId: hold.holdId,
    costMicro: 120_000n,
    usage: { description: "echo/echo-1" },
  });
  const settled = await (await service.request("/v1/credits/balance", keyInit(apiKey))).json();
  assert.deepEqual(settled, { balanceMicro: "880000", lastUsageAt: "2026-11-20T12:00:02.000Z" });
});

Deno.test("balanceMicro reports a debt as a negative figure, not 0", async () => {
  await using service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const orgId = await createOrg(service.request);
  const { apiKey } = await issueKey(service.request, orgId);
  await addCredits(service.request, orgId, "100", "top-up-1");
  const hold = await service.askOrg(orgId, { type: "reserve", amountMicro: 100n });
  await service.askOrg(orgId, {
    type: "settle",
    holdId: hold.holdId,
    costMicro: 250n,
    usage: { description: "echo/echo-1" },
  });
  const body = await (await service.request("/v1/credits/balance", keyInit(apiKey))).json();
  assert.deepEqual(body, { balanceMicro: "-150", lastUsageAt: "2026-11-20T12:00:00.000Z" });
});
