import assert from "node:assert/strict";
import { ADMIN_TOKEN, adminInit, errorCode, HOTKEY_A, HOTKEY_B } from "../support/access.ts";
import { agentCode, minerOrg, SUBMIT_AGENT, uploadInit } from "../support/agents.ts";
import { openTestService, TEST_START_MS } from "../support/test_service.ts";

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

Deno.test("GET /admin/v1/miners/{hotkey} shows the org and every version, newest first, without code", async () => {
  await using service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const { orgId, apiKey } = await minerOrg(service.request, [HOTKEY_A]);
  const auth = { authorization: `Bearer ${apiKey}` };
  const first =
    await (await service.request(SUBMIT_AGENT, uploadInit({ code: agentCode(1), name: "one" }, auth)))
      .json();
  service.clock.advance(DAY);
  const second = await (await service.request(SUBMIT_AGENT, uploadInit({ code: agentCode(2) }, auth))).json();
  service.clock.advance(1_000);
  const response = await service.request(`/admin/v1/miners/${HOTKEY_A}`, adminInit("GET"));
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), {
    hotkey: HOTKEY_A,
    org: { id: orgId, name: "Miners Inc", registeredAt: iso(TEST_START_MS) },
    currentVersionId: second.versionId,
    lastUploadAt: iso(TEST_START_MS + DAY),
    nextUploadAt: iso(TEST_START_MS + 2 * DAY),
    versions: [second, { ...first, current: false }],
  });
});

Deno.test("a hotkey neither registered nor uploaded, or not a hotkey, answers 404; no token answers 401", async () => {
  await using service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  await minerOrg(service.request, [HOTKEY_A]);
  const registered = await (await service.request(`/admin/v1/miners/${HOTKEY_A}`, adminInit("GET"))).json();
  assert.deepEqual([registered.versions, registered.currentVersionId, registered.nextUploadAt], [
    [],
    null,
    null,
  ]);
  for (const hotkey of [HOTKEY_B, "not-a-hotkey"]) {
    const response = await service.request(`/admin/v1/miners/${hotkey}`, adminInit("GET"));
    assert.equal(response.status, 404);
    assert.equal(await errorCode(response), "not_found");
  }
  const anonymous = await service.request(`/admin/v1/miners/${HOTKEY_A}`);
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
});
