/**
 * Bodies a browser would never send: a form body that cannot be parsed is refused with 400 naming
 * the body on every state-changing route, signed in or not (never a 500); and an owner's page a
 * viewer opens is refused as a page.
 */
import assert from "node:assert/strict";
import { refusalText } from "../../../routes/dashboard/ceremony/passkey_client.ts";
import { ADMIN_TOKEN, createOrg } from "../../support/access.ts";
import { TestBrowser } from "../../support/dashboard.ts";
import { memberBrowser } from "../../support/dashboard_member.ts";
import { getPage } from "../../support/dashboard_miners.ts";
import { openTestService, type TestService } from "../../support/test_service.ts";

const ORIGIN = "http://localhost:8080";
const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: ORIGIN };

/** POSTs a multipart body without its boundary's parts, with the browser's CSRF token in the header. */
async function postGarbage(service: TestService, browser: TestBrowser, pagePath: string, path: string) {
  const { html } = await getPage(service, browser, pagePath);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  assert.ok(csrf, `${pagePath} gives a CSRF token`);
  return await browser.fetch((p, init) => service.request(p, init), path, {
    method: "POST",
    headers: {
      accept: "application/json",
      origin: ORIGIN,
      "x-csrf-token": csrf,
      "content-type": "multipart/form-data; boundary=zz",
    },
    body: "garbage",
  });
}

Deno.test("a form body that cannot be parsed is 400 naming the body, signed in or not, never a 500", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const owner = await memberBrowser(service, orgId, "owner");
  const cases: [TestBrowser, string, string][] = [
    [new TestBrowser(), "/dashboard/sign-in", "/dashboard/sign-in/hotkey/challenge"],
    [new TestBrowser(), "/dashboard/sign-in", "/dashboard/sign-in/hotkey"],
    [owner, "/dashboard/keys", "/dashboard/keys"],
    [owner, "/dashboard", "/dashboard/low-balance"],
    [owner, "/dashboard/members", "/dashboard/members/invitations"],
    [owner, "/dashboard/miners", "/dashboard/miners/link/challenge"],
    [owner, "/dashboard/miners", "/dashboard/miners/link"],
  ];
  for (const [browser, pagePath, path] of cases) {
    const answer = await postGarbage(service, browser, pagePath, path);
    assert.equal(answer.status, 400, path);
    const { error } = await answer.json();
    assert.equal(error.code, "invalid_request", path);
    assert.deepEqual(error.details.fields.map((f: { field: string }) => f.field), ["body"], path);
  }
  assert.equal((await service.storage.apiKeys.listByOrg(orgId)).length, 0, "no key made");
});

Deno.test("a viewer opening an owner's page gets a 403 page, not a JSON body", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request);
  const viewer = await memberBrowser(service, orgId, "viewer");
  const page = await getPage(service, viewer, "/dashboard/audit");
  assert.equal(page.status, 403);
  assert.match(page.html, /<h1 data-error-code="insufficient_role">Only an owner may do this<\/h1>/);
  assert.match(page.html, /Only an owner of the organisation may do this\./);
});

Deno.test("the passkey script names each refused field with its problem", () => {
  const refusal = {
    message: "Invalid body",
    details: { fields: [{ field: "displayName", problem: "no control characters" }] },
  };
  assert.equal(refusalText(refusal, 400), "Invalid body (displayName: no control characters)");
  assert.equal(refusalText({ message: "Gone" }, 404), "Gone");
  assert.equal(refusalText(undefined, 502), "The server answered 502");
});
