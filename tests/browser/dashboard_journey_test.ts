/**
 * The dashboard's whole journey in Chromium with virtual authenticators: the operator invites an
 * owner (admin API), the owner accepts the link and registers a passkey, signs out, signs in again
 * with the passkey (no user name), creates an API key whose secret is shown once, uses it against
 * the API (a billed completion), sees the call in the usage view and its CSV, rotates and revokes
 * the key, links a hotkey by a signature made with polkadot-js's keyring as browser extensions
 * sign, invites a viewer who registers a passkey in a browser of its own, sees and cannot change,
 * binds the hotkey to the viewer, who signs in with it in a third browser, and unlinks the hotkey:
 * that session ends. No console error on any side; every page axe-clean.
 */
import assert from "node:assert/strict";
import { addCredits, adminInit, createOrg, keyInit } from "../support/access.ts";
import { browserTest } from "../support/browser/browser_host.ts";
import { openDashboardSite } from "../support/browser/dashboard_site.ts";
import { type Visit, visitPage } from "../support/browser/page_visit.ts";
import { addVirtualAuthenticator } from "../support/browser/virtual_authenticator.ts";
import {
  ownerInvitesViewer,
  viewerAccepts,
  viewerSeesAndCannotChange,
} from "../support/browser/journey/members.ts";
import {
  bindHotkey,
  linkHotkey,
  sessionEnded,
  signInWithHotkey,
  unlinkHotkey,
} from "../support/browser/journey/miners.ts";
import { makeBilledCall, seeCallInUsage } from "../support/browser/journey/usage.ts";
import { polkadotSigner } from "../support/polkadot/polkadot_signer.ts";

const KEY_NAME = "CI <script>alert(1)</script>";

/**
 * What went wrong in a visit, but for a form submitted while the icon still loads, which aborts
 * that load: navigation, not a fault.
 */
function problemsOf(visit: Visit): string[] {
  return visit.problems().filter((line) => !/favicon\.svg: net::ERR_ABORTED$/.test(line));
}

browserTest(
  "the whole dashboard journey: passkeys, a key made, used, seen in the usage view, rotated and revoked, a hotkey linked, a viewer, hotkey sign-in, unlink",
  async ({ browser, t }) => {
    await using site = await openDashboardSite();
    const { service } = site;
    const orgId = await createOrg(service.request, "Acme Forecasts");
    await addCredits(service.request, orgId, "5000000", "first top-up");
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
        await page.fill("#key-name", KEY_NAME);
        await page.check("#key-scope-billing-read");
        await page.check("#key-scope-gateway-write");
        await page.fill("#key-rateLimitRpm", "30");
        await page.click("text=Create the key");
        await page.waitForURL(`${site.base}/dashboard/keys`);
        apiKey = await page.locator("#new-api-key").innerText();
        assert.match(apiKey, /^fgw_[0-9a-f]{24}_/);
        assert.equal(await page.locator("tbody th[scope=row]").innerText(), KEY_NAME);
        await page.reload();
        assert.equal(await page.locator("#new-api-key").count(), 0);
        assert.equal(await page.locator("tbody tr").count(), 1);
        assert.ok(!(await page.content()).includes(apiKey), "the secret is in no later page");
      },
    );

    await t.step("the key's billed call shows in the usage view and in its CSV", async () => {
      const costMicro = await makeBilledCall(site, apiKey);
      assert.ok(costMicro > 0n);
      const keyId = apiKey.split("_")[1]!;
      const rows = await seeCallInUsage(page, site, { keyId, keyName: KEY_NAME, costMicro });
      assert.equal(rows.length, 1, "one day, one key");
    });

    await t.step("rotating shows the new secret once; the old one is refused", async () => {
      await page.goto(`${site.base}/dashboard/keys`);
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
    });

    const hotkey = polkadotSigner("//Alice");
    await t.step("the owner links a hotkey by a signature made as browser extensions sign", async () => {
      await linkHotkey(page, site, hotkey);
      const registration = await service.storage.orgs.minerRegistration(hotkey.address);
      assert.deepEqual([registration?.orgId, registration?.linkedWithProof], [orgId, true]);
    });

    const viewerName = "Vera <script>alert(1)</script>";
    let viewerId = "";
    await t.step(
      "the owner invites a viewer, who registers a passkey in a browser of its own, sees, and cannot change",
      async () => {
        const link = await ownerInvitesViewer(page, site);
        await using viewer = await viewerAccepts(browser, site, link, viewerName);
        const members = await service.storage.members.listMembers(orgId);
        viewerId = members.find((member) => member.role === "viewer")!.id;
        const ownerId = members.find((member) => member.role === "owner")!.id;
        // The viewer sees the keys and members and cannot change anything.
        await viewerSeesAndCannotChange(viewer.page, site, {
          keyId: apiKey.split("_")[1]!,
          ownerId,
          displayName: viewerName,
        });
        assert.deepEqual(problemsOf(viewer), [], "no console error on the viewer's side");
      },
    );

    await t.step(
      "the owner binds the hotkey to the viewer, who signs in with it as a viewer until it is unlinked",
      async () => {
        await bindHotkey(page, site, hotkey.address, viewerId);
        await using hotkeyBrowser = await visitPage(browser, { base: site.base, path: "/dashboard/sign-in" });
        await signInWithHotkey(hotkeyBrowser.page, site, hotkey, "viewer");
        // Unlinking the hotkey ends the session it signed in.
        await unlinkHotkey(page, site, hotkey.address);
        await sessionEnded(hotkeyBrowser.page, site);
        assert.deepEqual(problemsOf(hotkeyBrowser), [], "no console error on the hotkey's side");
        assert.deepEqual(problemsOf(visit), [], "no console error, failed request or error status");
      },
    );
  },
);
