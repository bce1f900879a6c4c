/**
 * The dashboard's usage in Chromium: an invited owner registers a passkey, makes a key with the
 * gateway scope, and the key's billed completion shows in the usage view (table and chart, in the
 * browser's time zone, here one of +5:45) and in the downloaded CSV, and its debit in the ledger;
 * a low-balance warning set above the balance shows its banner on every page. axe-clean pages, no
 * console error.
 */
import assert from "node:assert/strict";
import { addCredits, adminInit, createOrg } from "../support/access.ts";
import { browserTest } from "../support/browser/browser_host.ts";
import { openDashboardSite } from "../support/browser/dashboard_site.ts";
import { visitPage } from "../support/browser/page_visit.ts";
import { addVirtualAuthenticator } from "../support/browser/virtual_authenticator.ts";
import {
  makeBilledCall,
  seeCallInUsage,
  seeDebitInLedger,
  setThresholdAboveBalance,
} from "../support/browser/journey/usage.ts";

const KEY_NAME = "Forecast bot";

browserTest(
  "a key's billed call shows in the usage view, its CSV and the ledger; the low-balance banner appears",
  async ({ browser, t }) => {
    await using site = await openDashboardSite();
    const { service } = site;
    const orgId = await createOrg(service.request, "Acme Forecasts");
    await addCredits(service.request, orgId, "1000000", "first top-up");
    const invited = await service.request(
      `/admin/v1/orgs/${orgId}/invitations`,
      adminInit("POST", { role: "owner" }),
    );
    const { link } = await invited.json();
    await using visit = await visitPage(
      browser,
      { base: site.base, path: new URL(link).pathname },
      { timezoneId: "Asia/Kathmandu" },
    );
    const { page } = visit;
    await addVirtualAuthenticator(page);

    let apiKey = "";
    await t.step("the owner accepts the invitation and makes a key with the gateway scope", async () => {
      await page.click("button[data-passkey=register]");
      await page.waitForURL(`${site.base}/dashboard`);
      await page.click("text=API keys");
      await page.waitForURL(`${site.base}/dashboard/keys`);
      await page.fill("#key-name", KEY_NAME);
      await page.check("#key-scope-gateway-write");
      await page.fill("#key-rateLimitRpm", "30");
      await page.click("text=Create the key");
      await page.waitForURL(`${site.base}/dashboard/keys`);
      apiKey = await page.locator("#new-api-key").innerText();
    });

    let costMicro = 0n;
    await t.step("the key's billed call shows in the usage view and its CSV", async () => {
      costMicro = await makeBilledCall(site, apiKey);
      assert.ok(costMicro > 0n);
      const keyId = apiKey.split("_")[1]!;
      const rows = await seeCallInUsage(page, site, { keyId, keyName: KEY_NAME, costMicro });
      assert.equal(rows.length, 1);
    });

    await t.step("the call's debit heads the ledger", async () => {
      await seeDebitInLedger(page, site, costMicro);
    });

    await t.step("a warning above the balance shows the low-balance banner on every page", async () => {
      await setThresholdAboveBalance(page, site);
      // A form submitted while the icon still loads aborts that load: navigation, not a fault.
      const problems = visit.problems().filter((line) => !/favicon\.svg: net::ERR_ABORTED$/.test(line));
      assert.deepEqual(problems, [], "no console error, failed request or error status");
    });
  },
);
