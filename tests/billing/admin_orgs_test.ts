import assert from "node:assert/strict";
import { ADMIN_TOKEN, adminInit, errorCode, HOTKEY_A, HOTKEY_B } from "../support/access.ts";
import { ledgerSum } from "../support/ledger.ts";
import { openTestService, type TestService } from "../support/test_service.ts";

const ENV = { FGW_ADMIN_TOKEN: ADMIN_TOKEN };

async function createOrg(service: TestService, name = "Acme"): Promise<string> {
  const response = await service.request("/admin/v1/orgs", adminInit("POST", { name }));
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: string }).id;
}

/** `POST /admin/v1/orgs/{orgId}/credits` with `{amountMicro, reference}` (reference "r1" by default). */
async function credit(
  service: TestService,
  top: { orgId: string; amountMicro: unknown; reference?: string },
) {
  const { orgId, amountMicro, reference = "r1" } = top;
  return await service.request(
    `/admin/v1/orgs/${orgId}/credits`,
    adminInit("POST", { amountMicro, reference }),
  );
}

/** The field names a 400 body's details list. */
async function badFields(response: Response): Promise<string[]> {
  assert.equal(response.status, 400);
  const body = await response.json() as {
    error: { code: string; details?: { fields?: { field: string }[] } };
  };
  assert.equal(body.error.code, "invalid_request");
  return (body.error.details?.fields ?? []).map((entry) => entry.field);
}

Deno.test("admin creates an org and shows it with its balance, miners and keys", async () => {
  await using service = await openTestService({ env: ENV });
  const padded = await service.request("/admin/v1/orgs", adminInit("POST", { name: "  Acme Forecasting  " }));
  assert.deepEqual(await badFields(padded), ["name"], "a padded name is refused, never trimmed");
  const orgId = await createOrg(service, "Acme Forecasting");
  assert.match(orgId, /^org_[0-9a-f]{32}$/);
  const response = await service.request(`/admin/v1/orgs/${orgId}`, adminInit("GET"));
  assert.deepEqual(await response.json(), {
    id: orgId,
    name: "Acme Forecasting",
    createdAt: new Date(service.clock.now()).toISOString(),
    balanceMicro: "0",
    heldMicro: "0",
    availableMicro: "0",
    lastUsageAt: null,
    defaultMinerHotkey: null,
    miners: [],
    keys: [],
  });
});

Deno.test("admin credits are idempotent by reference and refuse a reused one with another amount", async () => {
  await using service = await openTestService({ env: ENV });
  const orgId = await createOrg(service);
  const first = await credit(service, { orgId, amountMicro: "2500000", reference: "stripe-pi-1" });
  assert.equal(first.status, 201);
  const body = await first.json();
  assert.equal(body.duplicate, false);
  assert.equal(body.balanceMicro, "2500000");
  assert.deepEqual({ ...body.entry, at: undefined }, {
    seq: 1,
    at: undefined,
    kind: "credit",
    amountMicro: "2500000",
    balanceAfterMicro: "2500000",
    reference: "stripe-pi-1",
    holdId: null,
  });
  const again = await credit(service, { orgId, amountMicro: "2500000", reference: "stripe-pi-1" });
  assert.equal(again.status, 200);
  assert.equal((await again.json()).duplicate, true);
  const clash = await credit(service, { orgId, amountMicro: "1", reference: "stripe-pi-1" });
  assert.equal(clash.status, 409);
  assert.equal(await errorCode(clash), "conflict");
  assert.equal(await ledgerSum(service.storage.billing, orgId), 2_500_000n);
});

Deno.test("admin credits refuse amounts that are not positive integers up to 2^63-1", async () => {
  await using service = await openTestService({ env: ENV });
  const orgId = await createOrg(service);
  for (const amount of ["-5", "0", "1.5", "1e6", "", " 5", 5, null, "9223372036854775808"]) {
    assert.deepEqual(
      await badFields(await credit(service, { orgId, amountMicro: amount })),
      ["amountMicro"],
      `amount ${amount}`,
    );
  }
  assert.deepEqual(await badFields(await credit(service, { orgId, amountMicro: "5", reference: "" })), [
    "reference",
  ]);
  assert.equal(
    (await credit(service, { orgId, amountMicro: "9223372036854775807", reference: "max" })).status,
    201,
  );
  assert.deepEqual(await badFields(await credit(service, { orgId, amountMicro: "1", reference: "over" })), [
    "amountMicro",
  ]);
  const balance = await (await service.request(`/admin/v1/orgs/${orgId}`, adminInit("GET"))).json();
  assert.equal(balance.balanceMicro, "9223372036854775807");
});

Deno.test("admin miners: SS58 checked, one org per hotkey, a default, and removal", async () => {
  await using service = await openTestService({ env: ENV });
  const orgId = await createOrg(service);
  const otherId = await createOrg(service, "Other");
  const post = (org: string, body: unknown) =>
    service.request(`/admin/v1/orgs/${org}/miners`, adminInit("POST", body));
  const added = await post(orgId, { hotkey: HOTKEY_A, default: true });
  assert.equal(added.status, 201);
  const view = await added.json();
  assert.equal(view.defaultMinerHotkey, HOTKEY_A);
  assert.deepEqual(view.miners.map((m: { hotkey: string; default: boolean }) => [m.hotkey, m.default]), [
    [HOTKEY_A, true],
  ]);
  assert.equal((await post(orgId, { hotkey: HOTKEY_A })).status, 200);
  const taken = await post(otherId, { hotkey: HOTKEY_A });
  assert.equal(taken.status, 409);
  assert.equal(await errorCode(taken), "conflict");
  const badChecksum = HOTKEY_B.slice(0, -1) + (HOTKEY_B.endsWith("A") ? "B" : "A");
  assert.deepEqual(await badFields(await post(orgId, { hotkey: badChecksum })), ["hotkey"]);
  assert.deepEqual(await badFields(await post(orgId, { hotkey: HOTKEY_B, default: "yes" })), ["default"]);
  const removed = await service.request(`/admin/v1/orgs/${orgId}/miners/${HOTKEY_A}`, adminInit("DELETE"));
  assert.equal(removed.status, 200);
  assert.deepEqual((await removed.json()).miners, []);
  const again = await service.request(`/admin/v1/orgs/${orgId}/miners/${HOTKEY_A}`, adminInit("DELETE"));
  assert.equal(again.status, 404);
  const garbage = await service.request(`/admin/v1/orgs/${orgId}/miners/nope`, adminInit("DELETE"));
  assert.equal(
    garbage.status,
    404,
    "a path value that cannot name a miner answers 404 (docs/conventions.md)",
  );
  assert.equal(await errorCode(garbage), "not_found");
});

Deno.test("admin org routes answer 404 not_found for an unknown org", async () => {
  await using service = await openTestService({ env: ENV });
  for (
    const path of [
      "/admin/v1/orgs/org_missing",
      "/admin/v1/orgs/org_missing/ledger",
      "/admin/v1/orgs/org_missing/usage",
    ]
  ) {
    const response = await service.request(path, adminInit("GET"));
    assert.equal(response.status, 404, path);
    assert.equal(await errorCode(response), "not_found");
  }
  const missing = await credit(service, { orgId: "org_missing", amountMicro: "5" });
  assert.equal(missing.status, 404);
  assert.equal(await errorCode(missing), "not_found");
});

Deno.test("admin org bodies: 415 for non-JSON, 400 for malformed or invalid, 413 when oversized", async () => {
  await using service = await openTestService({ env: ENV });
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const textBody = await service.request("/admin/v1/orgs", { method: "POST", headers, body: "name=x" });
  assert.equal(textBody.status, 415);
  assert.equal(await errorCode(textBody), "unsupported_media_type");
  const jsonHeaders = { ...headers, "content-type": "application/json" };
  const malformed = await service.request("/admin/v1/orgs", {
    method: "POST",
    headers: jsonHeaders,
    body: "{",
  });
  assert.equal(malformed.status, 400);
  assert.equal(await errorCode(malformed), "invalid_request");
  const huge = JSON.stringify({ name: "x".repeat(200_000) });
  const oversized = await service.request("/admin/v1/orgs", {
    method: "POST",
    headers: jsonHeaders,
    body: huge,
  });
  assert.equal(oversized.status, 413);
  assert.equal(await errorCode(oversized), "payload_too_large");
  assert.deepEqual(
    await badFields(await service.request("/admin/v1/orgs", adminInit("POST", { name: "" }))),
    ["name"],
  );
  assert.deepEqual(
    await badFields(await service.request("/admin/v1/orgs", adminInit("POST", { name: "a", x: 1 }))),
    ["x"],
  );
  const anonymous = await service.request("/admin/v1/orgs", { method: "POST", body: "{}" });
  assert.equal(anonymous.status, 401);
});

/** Five credits (1000…5000), then three settled calls c0, c1, c2 costing 100, 200, 300. */
async function seedHistory(service: TestService, orgId: string): Promise<void> {
  for (let i = 1; i <= 5; i++) {
    await credit(service, { orgId, amountMicro: String(i * 1_000), reference: `r${i}` });
  }
  for (let i = 0; i < 3; i++) {
    const { holdId } = await service.askOrg(orgId, { type: "reserve", amountMicro: 500n });
    const costMicro = 100n * BigInt(i + 1);
    await service.askOrg(orgId, { type: "settle", holdId, costMicro, usage: { description: `c${i}` } });
  }
}

Deno.test("admin ledger and usage page newest first with cursors bound to their list", async () => {
  await using service = await openTestService({ env: ENV });
  const orgId = await createOrg(service);
  await seedHistory(service, orgId);
  const seen: string[] = [];
  let path = `/admin/v1/orgs/${orgId}/ledger?limit=3`;
  for (;;) {
    const page = await (await service.request(path, adminInit("GET"))).json();
    seen.push(...page.items.map((item: { amountMicro: string }) => item.amountMicro));
    if (!page.nextCursor) break;
    path = `/admin/v1/orgs/${orgId}/ledger?limit=3&cursor=${encodeURIComponent(page.nextCursor)}`;
  }
  assert.deepEqual(seen, ["-300", "-200", "-100", "5000", "4000", "3000", "2000", "1000"]);
  const usage = await (await service.request(`/admin/v1/orgs/${orgId}/usage?limit=2`, adminInit("GET")))
    .json();
  assert.deepEqual(usage.items.map((item: { description: string }) => item.description), ["c2", "c1"]);
  assert.equal(usage.items[0].amountMicro, "300");
  const foreign = `/admin/v1/orgs/${orgId}/ledger?cursor=${encodeURIComponent(usage.nextCursor)}`;
  assert.deepEqual(await badFields(await service.request(foreign, adminInit("GET"))), ["cursor"]);
  assert.deepEqual(
    await badFields(await service.request(`/admin/v1/orgs/${orgId}/usage?limit=0`, adminInit("GET"))),
    [
      "limit",
    ],
  );
  const org = await (await service.request(`/admin/v1/orgs/${orgId}`, adminInit("GET"))).json();
  assert.equal(org.balanceMicro, "14400");
  assert.equal(org.lastUsageAt, new Date(service.clock.now()).toISOString());
  assert.equal(await ledgerSum(service.storage.billing, orgId), 14_400n);
});
