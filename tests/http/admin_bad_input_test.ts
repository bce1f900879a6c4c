import assert from "node:assert/strict";
import { adapterTest, type AdapterUnderTest } from "../support/adapters.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import { ADMIN_TOKEN, adminInit, createOrg, issueKey } from "../support/access.ts";

/** An admin-enabled service on the adapter's storage, with one org and one key. */
async function serviceOn(adapter: AdapterUnderTest) {
  const service = await openTestService({ storage: adapter.storage, env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN } });
  const orgId = await createOrg(service.request);
  const { key } = await issueKey(service.request, orgId);
  return { service, orgId, keyId: key.keyId };
}

/**
 * Asserts the error body of docs/conventions.md with `status` and `code`; returns the field names of a 400.
 */
async function assertError(response: Response, [status, code]: [number, string]): Promise<string[]> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  const body = JSON.parse(text) as { error: { code: string; details?: { fields?: { field: string }[] } } };
  assert.equal(body.error.code, code, text);
  return (body.error.details?.fields ?? []).map((entry) => entry.field);
}

/** Admin calls on `service`: `call(method, path, body?)`. */
function caller(service: TestService) {
  return (method: string, path: string, body?: unknown) => service.request(path, adminInit(method, body));
}

adapterTest(
  "admin API refuses control characters in free text with 400 naming the field",
  async (adapter) => {
    const { service, orgId } = await serviceOn(adapter);
    const call = caller(service);
    const key = { scopes: ["billing:read"], rateLimitRpm: 5 };
    const cases: [string, unknown, string][] = [
      ["/admin/v1/orgs", { name: "Acme\u0000Corp" }, "name"],
      ["/admin/v1/orgs", { name: "line\nbreak" }, "name"],
      [`/admin/v1/orgs/${orgId}/credits`, { amountMicro: "5", reference: "inv\u0000-1" }, "reference"],
      [`/admin/v1/orgs/${orgId}/keys`, { ...key, name: "ci\u0000" }, "name"],
      [`/admin/v1/orgs/${orgId}/keys`, { ...key, name: "\u007f" }, "name"],
    ];
    for (const [path, body, field] of cases) {
      assert.deepEqual(await assertError(await call("POST", path, body), [400, "invalid_request"]), [
        field,
      ]);
    }
    const org = await (await call("GET", `/admin/v1/orgs/${orgId}`)).json();
    assert.equal(org.balanceMicro, "0", "nothing was credited");
    assert.equal(org.keys.length, 1, "no key was issued");
  },
);

const KEY_CALLS = [["GET", ""], ["POST", "/rotate"], ["POST", "/revoke"], ["DELETE", ""]] as const;

adapterTest(
  "admin API answers 404 for a key id that cannot exist (NUL, 3,000 characters)",
  async (adapter) => {
    const { service, keyId } = await serviceOn(adapter);
    const call = caller(service);
    const badKeys = [
      "%00",
      `${keyId.slice(0, 23)}%00`,
      "a".repeat(3_000),
      "0".repeat(3_000),
      keyId.toUpperCase(),
    ];
    for (const bad of badKeys) {
      for (const [method, suffix] of KEY_CALLS) {
        await assertError(await call(method, `/admin/v1/keys/${bad}${suffix}`), [404, "not_found"]);
      }
    }
    const shown = await call("GET", `/admin/v1/keys/${keyId}`);
    assert.equal(shown.status, 200, "the real key is still there");
    await shown.body?.cancel();
  },
);

adapterTest(
  "admin API answers 404 for an org id that cannot exist (NUL, 3,000 characters)",
  async (adapter) => {
    const { service, orgId } = await serviceOn(adapter);
    const call = caller(service);
    const issue = { name: "k", scopes: ["billing:read"], rateLimitRpm: 5 };
    const credit = { amountMicro: "5", reference: "r" };
    for (const bad of ["%00", `${orgId}%00`, "o".repeat(3_000)]) {
      await assertError(await call("GET", `/admin/v1/orgs/${bad}/keys`), [404, "not_found"]);
      await assertError(await call("POST", `/admin/v1/orgs/${bad}/keys`, issue), [404, "not_found"]);
      await assertError(await call("POST", `/admin/v1/orgs/${bad}/credits`, credit), [404, "not_found"]);
      for (const suffix of ["", "/ledger", "/usage"]) {
        await assertError(await call("GET", `/admin/v1/orgs/${bad}${suffix}`), [404, "not_found"]);
      }
    }
    const keys = await call("GET", `/admin/v1/orgs/${orgId}/keys`);
    assert.equal((await keys.json()).items.length, 1, "the real org is still there, with its one key");
  },
);

adapterTest("admin ledger and usage refuse a repeated query parameter", async (adapter) => {
  const { service, orgId } = await serviceOn(adapter);
  const call = caller(service);
  for (const list of ["ledger", "usage"]) {
    const repeated = await call("GET", `/admin/v1/orgs/${orgId}/${list}?limit=1&limit=2`);
    assert.deepEqual(await assertError(repeated, [400, "invalid_request"]), ["limit"]);
    const cursor = await call("GET", `/admin/v1/orgs/${orgId}/${list}?cursor=a.b&cursor=c.d`);
    assert.deepEqual(await assertError(cursor, [400, "invalid_request"]), ["cursor"]);
    const single = await call("GET", `/admin/v1/orgs/${orgId}/${list}?limit=1`);
    assert.equal(single.status, 200);
    await single.body?.cancel();
  }
});
