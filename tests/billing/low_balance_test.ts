import assert from "node:assert/strict";
import { openTestService } from "../support/test_service.ts";
import {
  addCredits,
  ADMIN_TOKEN,
  adminInit,
  createOrg,
  errorCode,
  issueKey,
  keyInit,
} from "../support/access.ts";
import { memberBrowser } from "../support/dashboard_member.ts";

async function lowBalanceWorld() {
  const service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const orgId = await createOrg(service.request);
  await addCredits(service.request, orgId, "1000000", "top-up-1");
  const { apiKey } = await issueKey(service.request, orgId);
  const admin = (method: string, body?: unknown) =>
    service.request(`/admin/v1/orgs/${orgId}/low-balance`, adminInit(method, body));
  return { service, orgId, apiKey, admin };
}

Deno.test("an org's low-balance threshold is set, read and cleared through its OrgActor", async () => {
  const { service, orgId, apiKey, admin } = await lowBalanceWorld();
  await using _service = service;
  assert.deepEqual(await (await admin("GET")).json(), {
    thresholdMicro: null,
    availableMicro: "1000000",
    below: false,
  });
  const set = await admin("PUT", { thresholdMicro: "800000" });
  assert.equal(set.status, 200);
  assert.deepEqual(await set.json(), { thresholdMicro: "800000", availableMicro: "1000000", below: false });
  const hold = await service.askOrg(orgId, { type: "reserve", amountMicro: 300_000n });
  const keyed = await service.request("/v1/credits/low-balance", keyInit(apiKey));
  assert.equal(keyed.status, 200);
  assert.deepEqual(await keyed.json(), { thresholdMicro: "800000", availableMicro: "700000", below: true });
  await service.askOrg(orgId, { type: "release", holdId: hold.holdId });
  assert.equal((await (await admin("GET")).json()).below, false);
  assert.deepEqual(await (await admin("PUT", { thresholdMicro: null })).json(), {
    thresholdMicro: null,
    availableMicro: "1000000",
    below: false,
  });
  assert.equal((await service.askOrg(orgId, { type: "lowBalance" })).thresholdMicro, null);
});

Deno.test("a low-balance threshold must be a string of digits within 2^63 - 1, for an org that exists", async () => {
  const { service, orgId, admin } = await lowBalanceWorld();
  await using _service = service;
  for (
    const body of [
      { thresholdMicro: "-1" },
      { thresholdMicro: 5 },
      { thresholdMicro: "9223372036854775808" },
      {},
    ]
  ) {
    const response = await admin("PUT", body);
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.match(JSON.stringify(await response.json()), /thresholdMicro/);
  }
  const extra = await admin("PUT", { thresholdMicro: "1", colour: "red" });
  assert.equal(extra.status, 400);
  await extra.body?.cancel();
  await assert.rejects(
    service.askOrg(orgId, { type: "setLowBalance", thresholdMicro: -1n }),
    (error: Error & { code?: string }) => error.code === "invalid_request",
  );
  assert.equal((await (await admin("GET")).json()).thresholdMicro, null, "nothing was saved");
  const missing = await service.request(
    "/admin/v1/orgs/org_missing/low-balance",
    adminInit("PUT", { thresholdMicro: "1" }),
  );
  assert.equal(missing.status, 404);
  assert.equal(await errorCode(missing), "not_found");
  const anonymous = await service.request(`/admin/v1/orgs/${orgId}/low-balance`);
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
});

Deno.test("a threshold change writes its audit entry; a member who is not an owner may not change it", async () => {
  const service = await openTestService({
    env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: "http://localhost:8080" },
  });
  await using _service = service;
  const orgId = await createOrg(service.request);
  await memberBrowser(service, orgId, "owner");
  await memberBrowser(service, orgId, "viewer");
  const members = await service.storage.members.listMembers(orgId);
  const owner = members.find((member) => member.role === "owner")!;
  const viewer = members.find((member) => member.role === "viewer")!;
  await assert.rejects(
    service.askOrg(orgId, {
      type: "setLowBalance",
      thresholdMicro: 5n,
      by: { kind: "member", memberId: viewer.id },
    }),
    (error: Error & { code?: string }) => error.code === "insufficient_role",
  );
  assert.equal(
    (await service.askOrg(orgId, { type: "lowBalance" })).thresholdMicro,
    null,
    "nothing was saved",
  );
  await service.askOrg(orgId, {
    type: "setLowBalance",
    thresholdMicro: 5n,
    by: { kind: "member", memberId: owner.id },
  });
  await service.askOrg(orgId, { type: "setLowBalance", thresholdMicro: null });
  const log = await service.storage.audit.list(orgId, { limit: 10 });
  assert.deepEqual(
    log.filter((entry) => entry.action === "low_balance.set").map((entry) => [entry.by, entry.details]),
    [
      [{ kind: "operator" }, { thresholdMicro: null }],
      [{ kind: "member", memberId: owner.id }, { thresholdMicro: "5" }],
    ],
  );
});
