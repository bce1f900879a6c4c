/**
 * The members part of the dashboard's journey in Chromium: the operator invites an owner, who
 * accepts with a passkey and makes a key; the owner invites a viewer (the link shown once); the
 * viewer opens it in a second browser context with its own virtual authenticator, registers a
 * passkey under a display name with markup in it, sees the keys and members pages and cannot
 * change anything (no owner's form; a forced POST answers 403); axe finds nothing on every page.
 */
import assert from "node:assert/strict";
import { adminInit, createOrg, issueKey } from "../support/access.ts";
import { browserTest } from "../support/browser/browser_host.ts";
import { openDashboardSite } from "../support/browser/dashboard_site.ts";
import {
  assertAxeClean,
  memberAddsAndRemovesPasskey,
  memberSeesOwnPasskey,
  ownerInvitesViewer,
  ownerSeesViewer,
  viewerAccepts,
  viewerSeesAndCannotChange,
} from "../support/browser/journey/members.ts";
import { visitPage } from "../support/browser/page_visit.ts";
import { addVirtualAuthenticator } from "../support/browser/virtual_authenticator.ts";

/** A name a member types, with markup that must stay text. */
const VIEWER_NAME = `Vera <script>alert("x")</script>`;

browserTest(
  "an owner invites a viewer, who joins with a passkey, sees, and cannot change",
  async ({ browser, t }) => {
    await using site = await openDashboardSite();
    const { service } = site;
    const orgId = await createOrg(service.request, "Acme Forecasts");
    const { keyId } = (await issueKey(service.request, orgId)).key;
    const invited = await service.request(
      `/admin/v1/orgs/${orgId}/invitations`,
      adminInit("POST", { role: "owner" }),
    );
    const { link: ownerLink } = await invited.json();

    await using ownerVisit = await visitPage(browser, { base: site.base, path: new URL(ownerLink).pathname });
    const owner = ownerVisit.page;
    await addVirtualAuthenticator(owner);
    let ownerId = "";
    await t.step("the owner accepts the operator's invitation with a passkey", async () => {
      await owner.click("button[data-passkey=register]");
      await owner.waitForURL(`${site.base}/dashboard`);
      const [member] = await service.storage.members.listMembers(orgId);
      assert.equal(member?.displayName, "Owner", "a blank name: the member's role");
      ownerId = member!.id;
      await assertAxeClean(owner);
    });

    let viewerLink = "";
    await t.step("the owner invites a viewer: the link is shown once", async () => {
      viewerLink = await ownerInvitesViewer(owner, site);
    });

    const viewerVisit = await viewerAccepts(browser, site, viewerLink, VIEWER_NAME);
    try {
      const viewer = viewerVisit.page;
      await t.step("the viewer joined under its name, as a viewer, with one passkey", async () => {
        const members = await service.storage.members.listMembers(orgId);
        const joined = members.find((member) => member.displayName === VIEWER_NAME);
        assert.equal(joined?.role, "viewer");
        assert.equal((await service.storage.members.listCredentials(joined!.id)).length, 1);
        await memberSeesOwnPasskey(viewer, site);
      });

      await t.step("the viewer sees the keys and members pages and cannot change anything", async () => {
        await viewerSeesAndCannotChange(viewer, site, { keyId, ownerId, displayName: VIEWER_NAME });
      });

      await t.step(
        "the owner sees the viewer, named as typed, and the audit log says it joined",
        async () => {
          await ownerSeesViewer(owner, site, VIEWER_NAME);
        },
      );

      await t.step("the viewer adds a passkey from another device and removes its first one", async () => {
        await memberAddsAndRemovesPasskey(viewer, site);
        const [latest, before] = await service.storage.audit.list(orgId, { limit: 2 });
        assert.equal(latest?.action, "passkey.removed");
        assert.equal(before?.action, "passkey.added");
      });

      await t.step("no console error, failed request or error status on either side", () => {
        assert.deepEqual(viewerVisit.problems(), []);
        const problems = ownerVisit.problems().filter((line) =>
          !/favicon\.svg: net::ERR_ABORTED$/.test(line)
        );
        assert.deepEqual(problems, []);
      });
    } finally {
      await viewerVisit.close();
    }
  },
);
