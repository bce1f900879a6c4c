/**
 * A populated dashboard for the dashboard's page checks and screenshots: one organisation with
 * credit, three keys (one revoked), billed gateway calls on several days, a low-balance warning
 * above its available amount (so the banner shows), an owner and a viewer who accepted their
 * invitations with a passkey in Chromium (their sessions kept as cookies), and an unused
 * invitation link.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContextOptions } from "playwright-core";
import { addCredits, adminInit, createOrg, issueKey } from "../access.ts";
import { type DashboardSite, openDashboardSite } from "./dashboard_site.ts";
import { makeBilledCall } from "./journey/usage.ts";
import { visitPage } from "./page_visit.ts";
import { addVirtualAuthenticator } from "./virtual_authenticator.ts";

/** Who visits a page: nobody signed in, or a member of either role. */
export type Audience = "signed-out" | "owner" | "viewer";

/** The cookies of a browser signed in as a member. */
export type SignedIn = Exclude<BrowserContextOptions["storageState"], undefined>;

export interface DashboardWorld extends AsyncDisposable {
  site: DashboardSite;
  orgId: string;
  /** The path of an invitation nobody accepted yet. */
  invitationPath: string;
  /** The cookies of each member, by role. */
  members: Record<Exclude<Audience, "signed-out">, SignedIn>;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Billed calls on each of the days before today, oldest first: the chart's shape. */
const CALLS_PER_DAY = [2, 0, 3, 1, 4, 2, 3];

/** An invitation for `role` made through the admin API; its link's path. */
async function invite(site: DashboardSite, orgId: string, role: "owner" | "viewer"): Promise<string> {
  const response = await site.service.request(
    `/admin/v1/orgs/${orgId}/invitations`,
    adminInit("POST", { role }),
  );
  assert.equal(response.status, 201, await response.clone().text());
  return new URL((await response.json()).link).pathname;
}

/** Accepts an invitation for `role` with a passkey in its own browser context; the cookies after. */
async function signUp(browser: Browser, site: DashboardSite, orgId: string, role: "owner" | "viewer") {
  await using visit = await visitPage(browser, { base: site.base, path: await invite(site, orgId, role) });
  await addVirtualAuthenticator(visit.page);
  await visit.page.click("button[data-passkey=register]");
  await visit.page.waitForURL(`${site.base}/dashboard`);
  return await visit.page.context().storageState();
}

/** Builds the world of the module doc on a new dashboard site; disposing it closes the site. */
export async function openDashboardWorld(browser: Browser): Promise<DashboardWorld> {
  const site = await openDashboardSite();
  try {
    const { service } = site;
    // The organisation and its keys are made a week ago, their calls on the days since.
    const today = service.clock.now();
    service.clock.advance(-CALLS_PER_DAY.length * DAY_MS);
    const orgId = await createOrg(service.request, "Acme Forecasts");
    await addCredits(service.request, orgId, "25000000", "first top-up");
    const bot = await issueKey(service.request, orgId, {
      name: "Forecast bot",
      scopes: ["gateway:write", "billing:read"],
      rateLimitRpm: 120,
    });
    service.clock.advance(60_000); // the keys in a fixed order, oldest first
    const nightly = await issueKey(service.request, orgId, {
      name: "Nightly batch",
      scopes: ["gateway:write"],
    });
    service.clock.advance(60_000);
    await issueKey(service.request, orgId, { name: "Billing reader", scopes: ["billing:read"] });
    for (const [day, calls] of CALLS_PER_DAY.entries()) {
      for (let call = 0; call < calls; call++) {
        await makeBilledCall(site, (day + call) % 2 === 0 ? bot.apiKey : nightly.apiKey);
      }
      service.clock.advance(DAY_MS);
    }
    service.clock.set(today);
    const revoked = await service.request(`/admin/v1/keys/${nightly.key.keyId}/revoke`, adminInit("POST"));
    assert.equal(revoked.status, 200, await revoked.text());
    const threshold = await service.request(
      `/admin/v1/orgs/${orgId}/low-balance`,
      adminInit("PUT", { thresholdMicro: "30000000" }),
    );
    assert.equal(threshold.status, 200, await threshold.clone().text());
    assert.equal((await threshold.json()).below, true, "the banner shows");
    const members = {
      owner: await signUp(browser, site, orgId, "owner"),
      viewer: await signUp(browser, site, orgId, "viewer"),
    };
    const invitationPath = await invite(site, orgId, "viewer");
    return { site, orgId, invitationPath, members, [Symbol.asyncDispose]: () => site[Symbol.asyncDispose]() };
  } catch (error) {
    await site[Symbol.asyncDispose]();
    throw error;
  }
}
