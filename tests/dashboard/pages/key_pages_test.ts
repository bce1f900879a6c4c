import assert from "node:assert/strict";
import { ADMIN_TOKEN, adminInit, createOrg, issueKey, keyInit } from "../../support/access.ts";
import type { TestBrowser } from "../../support/dashboard.ts";
import { memberBrowser } from "../../support/dashboard_member.ts";
import { openTestService, type TestService } from "../../support/test_service.ts";

const ORIGIN = "http://localhost:8080";
const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: ORIGIN };
const HTML = { accept: "text/html" };

const fetcher = (service: TestService) => (path: string, init?: RequestInit) => service.request(path, init);

/** Posts a form of the keys page with the CSRF token the page gives this browser. */
async function postForm(
  service: TestService,
  browser: TestBrowser,
  path: string,
  fields: [string, string][] = [],
): Promise<Response> {
  const page = await (await browser.fetch(fetcher(service), "/dashboard/keys", { headers: HTML })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
  return await browser.fetch(fetcher(service), path, {
    method: "POST",
    headers: { ...HTML, origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([...fields, ["_csrf", csrf]]),
  });
}

const GOOD_KEY: [string, string][] = [
  ["name", "CI"],
  ["scopes", "billing:read"],
  ["scopes", "history:read"],
  [
    "rateLimitRpm",
    "30",
  ],
];

Deno.test("an owner's new key: its secret shown once after the redirect, an ordinary key of the API", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const owner = await memberBrowser(service, orgId, "owner");
  const created = await postForm(service, owner, "/dashboard/keys", GOOD_KEY);
  assert.equal(created.status, 303);
  assert.equal(created.headers.get("location"), "/dashboard/keys");
  const shown = await (await owner.fetch(fetcher(service), "/dashboard/keys", { headers: HTML })).text();
  const apiKey = /<code id="new-api-key">([^<]+)<\/code>/.exec(shown)?.[1] ?? "";
  assert.match(apiKey, /^fgw_[0-9a-f]{24}_/);
  assert.equal((await service.request("/v1/credits/balance", keyInit(apiKey))).status, 200);
  const again = await (await owner.fetch(fetcher(service), "/dashboard/keys", { headers: HTML })).text();
  assert.ok(!again.includes(apiKey), "a reload shows the secret no more");
  const listed = await (await service.request(`/admin/v1/orgs/${orgId}/keys`, adminInit("GET"))).json();
  assert.equal(listed.items.length, 1);
  assert.deepEqual(listed.items[0].scopes, ["billing:read", "history:read"]);
});

Deno.test("bad input shows the form again naming the field, and makes no key", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const owner = await memberBrowser(service, orgId, "owner");
  const cases: Array<[[string, string][], string]> = [
    [[["name", ""], ["scopes", "billing:read"], ["rateLimitRpm", "30"]], "name"],
    [[["name", "CI"], ["rateLimitRpm", "30"]], "scopes"],
    [[["name", "CI"], ["scopes", "root"], ["rateLimitRpm", "30"]], "scopes"],
    [[["name", "CI"], ["scopes", "billing:read"], ["rateLimitRpm", "0"]], "rateLimitRpm"],
    [[...GOOD_KEY, ["pinnedMinerHotkey", "not-a-hotkey"]], "pinnedMinerHotkey"],
    [[...GOOD_KEY, ["expiresAt", "2000-01-01T00:00"]], "expiresAt"],
  ];
  for (const [fields, named] of cases) {
    const answer = await postForm(service, owner, "/dashboard/keys", fields);
    assert.equal(answer.status, 400, named);
    const html = await answer.text();
    assert.match(html, new RegExp(`<strong>${named}</strong>`), named);
    assert.match(html, new RegExp(`id="key-${named === "scopes" ? "scopes" : named}-error"`), named);
  }
  const listed = await (await service.request(`/admin/v1/orgs/${orgId}/keys`, adminInit("GET"))).json();
  assert.equal(listed.items.length, 0);
});

Deno.test("a viewer sees the keys and gets 403 on every owner action; another org's key is 404", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const otherOrg = await createOrg(service.request, "Other");
  const { keyId } = (await issueKey(service.request, orgId)).key;
  const { keyId: otherKey } = (await issueKey(service.request, otherOrg)).key;
  const viewer = await memberBrowser(service, orgId, "viewer");
  const page = await (await viewer.fetch(fetcher(service), "/dashboard/keys", { headers: HTML })).text();
  assert.match(page, new RegExp(`data-key-id="${keyId}"`));
  assert.doesNotMatch(page, /Create the key/);
  for (
    const path of ["/dashboard/keys", `/dashboard/keys/${keyId}/rotate`, `/dashboard/keys/${keyId}/revoke`]
  ) {
    assert.equal((await postForm(service, viewer, path, GOOD_KEY)).status, 403, path);
  }
  const owner = await memberBrowser(service, orgId, "owner");
  for (const action of ["rotate", "revoke"]) {
    assert.equal(
      (await postForm(service, owner, `/dashboard/keys/${otherKey}/${action}`)).status,
      404,
      action,
    );
  }
  const rotated = await postForm(service, owner, `/dashboard/keys/${keyId}/rotate`);
  assert.equal(rotated.status, 303);
  const shown = await (await owner.fetch(fetcher(service), "/dashboard/keys", { headers: HTML })).text();
  assert.match(shown, new RegExp(`Key ${keyId} was rotated`));
});
