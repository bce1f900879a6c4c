import assert from "node:assert/strict";
import { PASSKEY_PATHS } from "../../../routes/dashboard/ceremony/passkey_routes.ts";
import { DisplayNameField } from "../../../routes/dashboard/display_name.ts";
import { ADMIN_TOKEN, adminInit, createOrg } from "../../support/access.ts";
import { TestBrowser } from "../../support/dashboard.ts";
import { PAGE_ORIGIN } from "../../support/dashboard_forms.ts";
import { openTestService, type TestService } from "../../support/test_service.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: PAGE_ORIGIN };

Deno.test("a display name is trimmed, one line of at most 64 characters, markup kept as text", () => {
  assert.equal(DisplayNameField.parse("  Ada Lovelace "), "Ada Lovelace");
  assert.equal(DisplayNameField.parse(""), "");
  assert.equal(DisplayNameField.parse("<script>alert(1)</script>"), "<script>alert(1)</script>");
  assert.equal(DisplayNameField.parse("é".repeat(64)), "é".repeat(64));
  for (
    const refused of ["a".repeat(65), "Ada\nLovelace", "Ada\u0000", "Ada\u202eevoL", "Ada\u2028Lovelace"]
  ) {
    assert.equal(DisplayNameField.safeParse(refused).success, false, JSON.stringify(refused));
  }
});

/** A browser on a viewer's invitation page, and a POST of JSON with the page's CSRF token. */
async function onInvitationPage(service: TestService) {
  const orgId = await createOrg(service.request);
  const invited = await service.request(
    `/admin/v1/orgs/${orgId}/invitations`,
    adminInit("POST", { role: "viewer" }),
  );
  const path = new URL((await invited.json()).link).pathname;
  const token = path.split("/").at(-1)!;
  const browser = new TestBrowser();
  const fetcher = (target: string, init?: RequestInit) => service.request(target, init);
  const page = await (await browser.fetch(fetcher, path, { headers: { accept: "text/html" } })).text();
  const csrf = /data-csrf="([^"]+)"/.exec(page)![1]!;
  const post = (target: string, body: unknown) =>
    browser.fetch(fetcher, `/dashboard${target}?invitation=${token}`, {
      method: "POST",
      headers: { origin: PAGE_ORIGIN, "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify(body),
    });
  return { orgId, page, post };
}

Deno.test("the invitation page asks for a name, which names the passkey; a bad one is 400 naming the field", async () => {
  await using service = await openTestService({ env: ON });
  const { orgId, page, post } = await onInvitationPage(service);
  assert.match(page, /<label for="display-name">/);
  assert.match(page, /<input id="display-name" name="displayName"/);
  assert.match(page, /data-name-input="display-name"/);
  const named = await post(PASSKEY_PATHS.registrationOptions, { displayName: "  Grace <b>H</b> " });
  assert.equal(named.status, 200);
  const options = await named.json();
  assert.equal(options.user.displayName, "Grace <b>H</b>");
  assert.equal(options.user.name, "Grace <b>H</b>");
  const blank = await (await post(PASSKEY_PATHS.registrationOptions, { displayName: " " })).json();
  assert.equal(blank.user.displayName, "Viewer", "a blank name: the member's role");
  for (const displayName of ["x".repeat(65), "two\nlines", 7]) {
    for (const path of [PASSKEY_PATHS.registrationOptions, PASSKEY_PATHS.register]) {
      const body = path === PASSKEY_PATHS.register ? { response: {}, displayName } : { displayName };
      const refused = await post(path, body);
      assert.equal(refused.status, 400, `${path} ${JSON.stringify(displayName)}`);
      const fields = (await refused.json()).error.details.fields.map((entry: { field: string }) =>
        entry.field
      );
      assert.ok(fields.includes("displayName"), fields.join());
    }
  }
  assert.equal((await service.storage.members.listMembers(orgId)).length, 0, "nobody joined");
});
