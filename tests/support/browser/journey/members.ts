/**
 * Steps of the dashboard's browser journey about members: an owner invites a viewer (the link
 * shown once), the viewer accepts it in its own browser context with its own virtual
 * authenticator and a display name, sees the keys and members pages, and can change nothing.
 * Each step takes the page it drives and the site, and asserts what the step must show.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { axeViolations } from "../axe.ts";
import type { DashboardSite } from "../dashboard_site.ts";
import { type Visit, visitPage } from "../page_visit.ts";
import { addVirtualAuthenticator } from "../virtual_authenticator.ts";

/** The page has no serious or critical axe violation. */
export async function assertAxeClean(page: Page): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `axe on ${page.url()}`);
}

/**
 * The signed-in owner opens the members page and invites a viewer: the link is shown once (a
 * reload shows it no more). Answers the link.
 */
export async function ownerInvitesViewer(page: Page, site: DashboardSite): Promise<string> {
  await page.goto(`${site.base}/dashboard/members`);
  await assertAxeClean(page);
  await page.selectOption("#invite-role", "viewer");
  await page.click("text=Make an invitation link");
  await page.waitForURL(`${site.base}/dashboard/members`);
  const link = await page.locator("#invitation-link").innerText();
  assert.ok(link.startsWith(`${site.base}/dashboard/invitations/`), link);
  assert.match(await page.locator("#link-once").innerText(), /Invitation link/);
  await assertAxeClean(page);
  await page.reload();
  assert.equal(await page.locator("#invitation-link").count(), 0, "a reload shows the link no more");
  assert.ok(!(await page.content()).includes(link), "the link is in no later page");
  assert.match(await page.locator("tr[data-invitation-id]").innerText(), /A new viewer/);
  return link;
}

/**
 * The invited person opens the link in a browser context of its own, with its own virtual
 * authenticator, types `displayName` and registers a passkey: it lands on the home page signed in
 * under that name. Answers the visit (close it when done).
 */
export async function viewerAccepts(
  browser: Browser,
  site: DashboardSite,
  link: string,
  displayName: string,
): Promise<Visit> {
  const visit = await visitPage(browser, { base: site.base, path: new URL(link).pathname });
  const { page } = visit;
  await addVirtualAuthenticator(page);
  assert.equal(await page.locator("h1").innerText(), "Accept your invitation");
  assert.match(await page.locator("main").innerText(), /as a viewer/);
  await assertAxeClean(page);
  await page.fill("#display-name", displayName);
  await page.click("button[data-passkey=register]");
  await page.waitForURL(`${site.base}/dashboard`);
  assert.equal(await page.locator("main strong").first().innerText(), displayName);
  assert.match(await page.locator("main").innerText(), /a viewer of this organisation/);
  return visit;
}

/** The owner's actions a forced POST tries, for a viewer: each must answer 403. */
function ownerActions(ids: { keyId: string; memberId: string }): string[] {
  return [
    "/dashboard/keys",
    `/dashboard/keys/${ids.keyId}/rotate`,
    `/dashboard/keys/${ids.keyId}/revoke`,
    "/dashboard/members/invitations",
    `/dashboard/members/${ids.memberId}/role`,
    `/dashboard/members/${ids.memberId}/remove`,
    `/dashboard/members/${ids.memberId}/reenrol`,
  ];
}

/**
 * The signed-in viewer sees the keys page (the key `keyId` listed) and the members page (itself
 * and the owner `ownerId`, its name as text) without any owner's form, the audit log is refused,
 * and a forced POST of every owner action, with the viewer's own CSRF token, answers 403.
 */
export async function viewerSeesAndCannotChange(
  page: Page,
  site: DashboardSite,
  ids: { keyId: string; ownerId: string; displayName: string },
): Promise<void> {
  await page.goto(`${site.base}/dashboard/keys`);
  assert.equal(await page.locator(`tr[data-key-id="${ids.keyId}"]`).count(), 1);
  assert.equal(await page.locator("form[action^='/dashboard/keys']").count(), 0, "no key form");
  assert.match(
    await page.locator("main").innerText(),
    /Only an owner of the organisation can create or change keys/,
  );
  await assertAxeClean(page);

  await page.goto(`${site.base}/dashboard/members`);
  assert.equal(await page.locator(`tr[data-member-id="${ids.ownerId}"]`).count(), 1);
  assert.equal(await page.locator("form[action^='/dashboard/members']").count(), 0, "no member form");
  assert.equal(await page.locator("tbody th", { hasText: `${ids.displayName} (you)` }).count(), 1);
  assert.equal(await page.locator("a[href='/dashboard/audit']").count(), 0);
  await assertAxeClean(page);

  // The viewer's own CSRF token, from the one form a viewer has: signing out, on the home page.
  await page.goto(`${site.base}/dashboard`);
  const csrf = await page.locator("input[name=_csrf]").first().getAttribute("value") ?? "";
  assert.ok(csrf, "the page gives the viewer a CSRF token");
  for (const path of ownerActions({ keyId: ids.keyId, memberId: ids.ownerId })) {
    const answer = await page.request.post(`${site.base}${path}`, {
      headers: { origin: site.base },
      form: { _csrf: csrf, role: "viewer", name: "x", scopes: "billing:read", rateLimitRpm: "5" },
      maxRedirects: 0,
    });
    assert.equal(answer.status(), 403, path);
  }
  const audit = await page.request.get(`${site.base}/dashboard/audit`, { maxRedirects: 0 });
  assert.equal(audit.status(), 403);
}

/** The signed-in owner's members page lists the new viewer under its name, shown as text. */
export async function ownerSeesViewer(page: Page, site: DashboardSite, displayName: string): Promise<string> {
  await page.goto(`${site.base}/dashboard/members`);
  const row = page.locator("tr[data-member-id]", { has: page.locator("th", { hasText: displayName }) });
  assert.equal(await row.count(), 1);
  assert.match(await row.innerText(), /viewer/);
  const memberId = await row.getAttribute("data-member-id") ?? "";
  assert.equal(await page.locator("tr[data-invitation-id]").count(), 0, "the invitation was used up");
  await page.goto(`${site.base}/dashboard/audit`);
  assert.match(await page.locator("tbody").innerText(), new RegExp(`joined as a viewer`));
  await assertAxeClean(page);
  return memberId;
}

/** The signed-in member's passkeys page lists its one passkey, which it cannot remove. */
export async function memberSeesOwnPasskey(page: Page, site: DashboardSite): Promise<void> {
  await page.goto(`${site.base}/dashboard/passkeys`);
  assert.equal(await page.locator("tr[data-credential-id]").count(), 1);
  assert.match(await page.locator("tbody").innerText(), /your only passkey/);
  await assertAxeClean(page);
}

/**
 * The signed-in member adds a passkey from another device (a second tab of the same browser
 * context, with an authenticator of its own), sees two, and removes the first; one is left, which
 * it cannot remove.
 */
export async function memberAddsAndRemovesPasskey(page: Page, site: DashboardSite): Promise<void> {
  const device = await page.context().newPage();
  try {
    const authenticator = await addVirtualAuthenticator(device);
    await device.goto(`${site.base}/dashboard/passkeys`);
    const first = await device.locator("tr[data-credential-id]").getAttribute("data-credential-id");
    await device.click("button[data-passkey=register]");
    await device.locator("tr[data-credential-id]").nth(1).waitFor();
    assert.equal((await authenticator.credentials()).length, 1, "the new device holds the new passkey");
    await assertAxeClean(device);
    await device.click(`tr[data-credential-id="${first}"] button`);
    await device.waitForURL(`${site.base}/dashboard/passkeys`);
    assert.equal(await device.locator("tr[data-credential-id]").count(), 1);
    assert.equal(await device.locator(`tr[data-credential-id="${first}"]`).count(), 0);
    assert.match(await device.locator("tbody").innerText(), /your only passkey/);
  } finally {
    await device.close();
  }
}
