/**
 * The miners part of the dashboard journey in Chromium: an invited owner (passkey, virtual
 * authenticator) links a hotkey with a signature made as browser extensions sign, binds it to a
 * viewer who joined through a second context's authenticator, the viewer signs in with the hotkey,
 * the owner links a second hotkey through a browser extension in the page, and once the owner
 * unlinks the first the viewer's hotkey session ends.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { adminInit, createOrg } from "../support/access.ts";
import { browserTest } from "../support/browser/browser_host.ts";
import { type DashboardSite, openDashboardSite } from "../support/browser/dashboard_site.ts";
import {
  bindHotkey,
  installTestExtension,
  linkHotkey,
  linkHotkeyWithExtension,
  sessionEnded,
  signInWithHotkey,
  unlinkHotkey,
} from "../support/browser/journey/miners.ts";
import { visitPage } from "../support/browser/page_visit.ts";
import { addVirtualAuthenticator } from "../support/browser/virtual_authenticator.ts";
import { polkadotSigner } from "../support/polkadot/polkadot_signer.ts";

/** A new browser context that accepts an operator's invitation for `role` with its passkey: signed in. */
async function acceptInvitation(browser: Browser, site: DashboardSite, orgId: string, role: string) {
  const invited = await site.service.request(
    `/admin/v1/orgs/${orgId}/invitations`,
    adminInit("POST", { role }),
  );
  const { link } = await invited.json();
  const visit = await visitPage(browser, { base: site.base, path: new URL(link).pathname });
  await addVirtualAuthenticator(visit.page);
  await visit.page.click("button[data-passkey=register]");
  await visit.page.waitForURL(`${site.base}/dashboard`);
  return visit;
}

browserTest(
  "an owner links a hotkey by proof and binds it to a viewer, who signs in with it until it is unlinked",
  async ({ browser, t }) => {
    await using site = await openDashboardSite();
    const { service } = site;
    const hotkey = polkadotSigner("//Alice");
    const orgId = await createOrg(service.request, "Acme Forecasts");
    await using owner = await acceptInvitation(browser, site, orgId, "owner");
    await using viewer = await acceptInvitation(browser, site, orgId, "viewer");
    const viewerId = (await service.storage.members.listMembers(orgId)).find((m) => m.role === "viewer")!.id;

    await t.step("the owner links the hotkey with an extension's signature", async () => {
      await linkHotkey(owner.page, site, hotkey);
      const [miner] = await service.storage.orgs.listMiners(orgId);
      assert.deepEqual([miner?.hotkey, miner?.linkedWithProof], [hotkey.address, true]);
    });

    await t.step("the owner binds it to the viewer", async () => {
      await bindHotkey(owner.page, site, hotkey.address, viewerId);
      assert.equal((await service.storage.orgs.minerRegistration(hotkey.address))?.boundMemberId, viewerId);
    });

    await using fresh = await visitPage(browser, { base: site.base, path: "/dashboard/sign-in" });
    await t.step("a fresh browser signs in with the hotkey, as the viewer", async () => {
      await signInWithHotkey(fresh.page, site, hotkey, "viewer");
    });

    await t.step(
      "with a browser extension in the page, the owner links a hotkey without pasting",
      async () => {
        const second = polkadotSigner("//Bob");
        await installTestExtension(owner.page, second);
        await linkHotkeyWithExtension(owner.page, site, second);
        assert.equal((await service.storage.orgs.minerRegistration(second.address))?.linkedWithProof, true);
      },
    );

    await t.step("the owner unlinks it, and the hotkey's session ends at its next page load", async () => {
      await unlinkHotkey(owner.page, site, hotkey.address);
      await sessionEnded(fresh.page, site);
      // The viewer's passkey session is not the hotkey's: it holds.
      await viewer.page.goto(`${site.base}/dashboard`);
      assert.equal(viewer.page.url(), `${site.base}/dashboard`);
      for (const visit of [owner, viewer, fresh]) {
        const problems = visit.problems().filter((line) => !/favicon\.svg: net::ERR_ABORTED$/.test(line));
        assert.deepEqual(problems, [], "no console error, failed request or error status");
      }
    });
  },
);
