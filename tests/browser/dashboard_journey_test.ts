/**
 * The dashboard's journey in Chromium with its virtual authenticator: the operator invites an
 * owner (admin API), the owner accepts the link and registers a passkey, signs out, signs in again
 * with the passkey (no user name), creates an API key whose secret is shown once, uses it against
 * the API, rotates it and revokes it.
 */
import assert from "node:assert/strict";
import { adminInit, createOrg, keyInit } from "../support/access.ts";
import { browserTest } from "../support/browser/browser_host.ts";
import { openDashboardSite } from "../support/browser/dashboard_site.ts";
import { visitPage } from "../support/browser/page_visit.ts";
import { addVirtualAuthenticator } from "../support/browser/virtual_authenticator.ts";

browserTest(
  "an invited owner registers a passkey, signs in with it, and makes, uses, rotates and revokes a key",
  async ({ browser, t }) => {
    await using site = await openDashboardSite();
    const { service } = site;
    const orgId = await createOrg(service.request, "Acme Forecasts");
    const invited = await service.request(
      `/admin/v1/orgs/${orgId}/invitations`,
      adminInit("POST", { role: "owner" }),
    );
    const { link } = await invited.json();
    assert.ok(link.startsWith(`${site.base}/dashboard/invitations/`), link);

    await using visit = await visitPage(browser, { base: site.base, path: new URL(link).pathname });
    const { page } = visit;
    const authenticator = await addVirtualAuthenticator(page);

    await t.step("accepting the invitation registers a passkey and signs the owner in", async () => {
      assert.equal(await page.locator("h1").innerText(), "Accept your invitation");
      await page.click("button[data-passkey=register]");
      await page.waitForURL(`${site.base}/dashboard`);
      assert.equal(await page.locator("h1").innerText(), "Acme Forecasts");
      assert.match(await page.locator("main").innerText(), /an owner of this organisation/);
      const members = await service.storage.members.listMembers(orgId);
      assert.equal(members.length, 1);
      assert.equal(members[0]?.role, "owner");
      const [credential] = await authenticator.credentials();
      assert.equal(credential?.isResidentCredential, true);
      assert.equal((await service.storage.members.listCredentials(members[0]!.id)).length, 1);
    });

    await t.step("the used link now answers 404", async () => {
      const again = await service.request(new URL(link).pathname, { headers: { accept: "text/html" } });
      assert.equal(again.status, 404);
    });

    await t.step("signing out leads to the sign-in page; the home page is closed", async () => {
      await page.click("text=Sign out");
      await page.waitForURL(`${site.base}/dashboard/sign-in`);
      await page.goto(`${site.base}/dashboard`);
      await page.waitForURL(`${site.base}/dashboard/sign-in`);
    });

    await t.step("signing in with the passkey, no user name asked, opens the home page", async () => {
      await page.click("button[data-passkey=sign-in]");
      await page.waitForURL(`${site.base}/dashboard`);
      assert.equal(await page.locator("h1").innerText(), "Acme Forecasts");
    });

    let apiKey = "";
    await t.step(
      "creating a key shows its secret once; a reload shows it no more and makes no key",
      async () => {
        await page.click("text=API keys");
        await page.waitForURL(`${site.base}/dashboard/keys`);
        await page.fill("#key-name", "CI <script>alert(1)</script>");
        await page.check("#key-scope-billing-read");
        await page.fill("#key-rateLimitRpm", "30");
        await page.click("text=Create the key");
        await page.waitForURL(`${site.base}/dashboard/keys`);
        apiKey = await page.locator("#new-api-key").innerText();
        assert.match(apiKey, /^fgw_[0-9a-f]{24}_/);
        assert.equal(await page.locator("tbody th[scope=row]").innerText(), "CI <script>alert(1)</script>");
        await page.reload();
        assert.equal(await page.locator("#new-api-key").count(), 0);
        assert.equal(await page.locator("tbody tr").count(), 1);
        assert.ok(!(await page.content()).includes(apiKey), "the secret is in no later page");
      },
    );

    await t.step("rotating shows the new secret once; the old one is refused", async () => {
      assert.equal((await service.request("/v1/credits/balance", keyInit(apiKey))).status, 200);
      await page.click("button[aria-label^=Rotate]");
      await page.waitForURL(`${site.base}/dashboard/keys`);
      const rotated = await page.locator("#new-api-key").innerText();
      assert.notEqual(rotated, apiKey);
      assert.equal((await service.request("/v1/credits/balance", keyInit(apiKey))).status, 401);
      apiKey = rotated;
    });

    await t.step("the key works against the API, and once revoked it is refused", async () => {
      const balance = await service.request("/v1/credits/balance", keyInit(apiKey));
      assert.equal(balance.status, 200);
      await page.click("button[aria-label^=Revoke]");
      await page.waitForURL(`${site.base}/dashboard/keys`);
      assert.match(await page.locator("tbody tr").innerText(), /revoked/);
      const refused = await service.request("/v1/credits/balance", keyInit(apiKey));
      assert.equal(refused.status, 401);
      // A form submitted while the icon still loads aborts that load: navigation, not a fault.
      const problems = visit.problems().filter((line) => !/favicon\.svg: net::ERR_ABORTED$/.test(line));
      assert.deepEqual(problems, [], "no console error, failed request or error status");
    });
  },
);
