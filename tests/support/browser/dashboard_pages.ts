/**
 * The dashboard's pages, as the browser tests (tests/browser/dashboard_pages_test.ts) and
 * `deno task screenshots` know them: one entry per page, on the world of dashboard_world.ts. A new
 * page is a new entry here; the test fails naming any HTML page route of the dashboard that has
 * none.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { Audience, DashboardWorld } from "./dashboard_world.ts";

export interface DashboardPage {
  /** Names the page in test names and in its screenshots' files (`docs/screenshots/dashboard-<name>-desktop.png`). */
  name: string;
  /** The route it answers, as the router spells it (`/dashboard/invitations/:token`). */
  route: string;
  /** What the browser opens: the route with its parameters filled in from the world. */
  path: (world: DashboardWorld) => string;
  /** Who may see it; a member of another role is refused it (403), nobody signed in is sent to sign in. */
  as: readonly Audience[];
  /** Where an owner sees forms a viewer must not: CSS selectors present for owners, absent for viewers. */
  ownerOnly?: readonly string[];
  /** A CSS selector of an element on the page once it has rendered (default `main h1`). */
  ready?: string;
  /** More checks of the rendered page (desktop width), after `ready`. */
  expect?: (page: Page, as: Audience) => Promise<void>;
}

/**
 * The dashboard's navigation and then the low-balance banner head every page of a signed-in member
 * (the world's balance is under its warning), each once.
 */
async function bannerShown(page: Page): Promise<void> {
  assert.equal(await page.locator("nav.dashboard-nav").count(), 1, "the dashboard's navigation, once");
  assert.equal(await page.locator("#low-balance-banner").count(), 1, "the banner, once");
  assert.match(await page.locator("#low-balance-banner").innerText(), /Low balance/);
  const order = await page.locator("main > nav.dashboard-nav + #low-balance-banner").count();
  assert.equal(order, 1, "the banner right after the navigation");
}

export const DASHBOARD_PAGES: readonly DashboardPage[] = [
  {
    name: "sign-in",
    route: "/dashboard/sign-in",
    path: () => "/dashboard/sign-in",
    as: ["signed-out"],
    expect: async (page) => {
      assert.equal(await page.locator("button[data-passkey=sign-in]").count(), 1);
    },
  },
  {
    name: "invitation",
    route: "/dashboard/invitations/:token",
    path: (world) => world.invitationPath,
    as: ["signed-out"],
    expect: async (page) => {
      assert.equal(await page.locator("h1").innerText(), "Accept your invitation");
      assert.equal(await page.locator("button[data-passkey=register]").count(), 1);
    },
  },
  {
    name: "home",
    route: "/dashboard",
    path: () => "/dashboard",
    as: ["owner", "viewer"],
    ownerOnly: ['form[action="/dashboard/low-balance"]'],
    expect: async (page, as) => {
      assert.equal(await page.locator("h1").innerText(), "Acme Forecasts");
      assert.match(await page.locator("main").innerText(), as === "owner" ? /an owner/ : /a viewer/);
      await bannerShown(page);
    },
  },
  {
    name: "keys",
    route: "/dashboard/keys",
    path: () => "/dashboard/keys",
    as: ["owner", "viewer"],
    ownerOnly: ['form[action="/dashboard/keys"]', 'form[action$="/rotate"]', 'form[action$="/revoke"]'],
    expect: async (page) => {
      assert.equal(await page.locator("tbody tr").count(), 3, "the world's three keys");
      assert.match(await page.locator("tbody").innerText(), /revoked/);
      await bannerShown(page);
    },
  },
  {
    name: "usage",
    route: "/dashboard/usage",
    // With its zone: without one, the page's script asks again with the browser's.
    path: () => "/dashboard/usage?tz=UTC",
    as: ["owner", "viewer"],
    expect: async (page) => {
      assert.ok(await page.locator("#usage-table tbody tr").count() >= 2, "both keys' calls");
      assert.ok(await page.locator("#usage-chart .point").count() > 0, "the chart has points");
      await bannerShown(page);
    },
  },
  {
    name: "ledger",
    route: "/dashboard/ledger",
    path: () => "/dashboard/ledger",
    as: ["owner", "viewer"],
    expect: async (page) => {
      assert.match(await page.locator("#ledger-table tbody tr").first().innerText(), /debit/);
      await bannerShown(page);
    },
  },
  {
    name: "members",
    route: "/dashboard/members",
    path: () => "/dashboard/members",
    as: ["owner", "viewer"],
    ownerOnly: ['form[action="/dashboard/members/invitations"]', 'form[action$="/role"]'],
    expect: async (page) => {
      assert.equal(await page.locator("tr[data-member-id]").count(), 2, "the owner and the viewer");
      await bannerShown(page);
    },
  },
  {
    name: "passkeys",
    route: "/dashboard/passkeys",
    path: () => "/dashboard/passkeys",
    as: ["owner", "viewer"],
    expect: async (page) => {
      assert.equal(await page.locator("h1").innerText(), "Your passkeys");
      await bannerShown(page);
    },
  },
  {
    name: "miners",
    route: "/dashboard/miners",
    path: () => "/dashboard/miners",
    as: ["owner", "viewer"],
    ownerOnly: ['form[action="/dashboard/miners/link/challenge"]'],
    expect: async (page) => {
      assert.match(await page.locator("h1").innerText(), /^Miners of /);
      await bannerShown(page);
    },
  },
  {
    name: "audit",
    route: "/dashboard/audit",
    path: () => "/dashboard/audit",
    as: ["owner"],
    expect: async (page) => {
      assert.match(await page.locator("tbody").innerText(), /joined as a viewer/);
      await bannerShown(page);
    },
  },
];

/**
 * GET routes of the dashboard that answer no HTML page, each with what it answers instead: a new
 * GET route under `/dashboard` is either a page (an entry of `DASHBOARD_PAGES`) or named here.
 */
export const DASHBOARD_NOT_PAGES: Readonly<Record<string, string>> = {
  "/dashboard/assets/passkey.js": "the passkey buttons' script",
  "/dashboard/assets/usage.js": "the usage form's time-zone script",
  "/dashboard/assets/hotkey.js": "the hotkey forms' browser-extension signing script",
  "/dashboard/usage.csv": "the usage table as CSV",
};

/**
 * The GET routes under `/dashboard` of `app` (the service's, routes mounted included) that are in
 * neither `DASHBOARD_PAGES` nor `DASHBOARD_NOT_PAGES`: pages a browser test would leave out.
 */
export function unlistedRoutes(app: { routes: readonly { method: string; path: string }[] }): string[] {
  const listed = new Set([...DASHBOARD_PAGES.map((page) => page.route), ...Object.keys(DASHBOARD_NOT_PAGES)]);
  const routes = app.routes
    .filter((route) => route.method === "GET" && /^\/dashboard(\/|$)/.test(route.path))
    .map((route) => route.path);
  return [...new Set(routes)].filter((route) => !listed.has(route));
}
