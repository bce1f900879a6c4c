/**
 * Every dashboard page (tests/support/browser/dashboard_pages.ts) in Chromium, on a populated
 * dashboard, as each audience it names, at desktop and phone width (the checks of
 * tests/support/browser/dashboard_checks.ts); the audiences it refuses are refused. And every GET
 * route of the dashboard that answers a page has an entry, so a new page cannot be left out.
 */
import assert from "node:assert/strict";
import { browserTest } from "../support/browser/browser_host.ts";
import { checkDashboardPage, checkRefused } from "../support/browser/dashboard_checks.ts";
import { DASHBOARD_NOT_PAGES, DASHBOARD_PAGES } from "../support/browser/dashboard_pages.ts";
import { openDashboardSite } from "../support/browser/dashboard_site.ts";
import { openDashboardWorld } from "../support/browser/dashboard_world.ts";
import { DESKTOP, PHONE } from "../support/browser/page_visit.ts";

Deno.test("every GET route of the dashboard is a listed page or a listed non-page", async () => {
  await using site = await openDashboardSite();
  const routes = new Set(
    site.service.app.routes
      .filter((route) => route.method === "GET" && /^\/dashboard(\/|$)/.test(route.path))
      .map((route) => route.path),
  );
  const pages = new Set(DASHBOARD_PAGES.map((page) => page.route));
  const missing = [...routes].filter((route) => !pages.has(route) && !(route in DASHBOARD_NOT_PAGES));
  assert.deepEqual(missing, [], "GET routes with no entry in DASHBOARD_PAGES");
  const stale = [...pages, ...Object.keys(DASHBOARD_NOT_PAGES)].filter((route) => !routes.has(route));
  assert.deepEqual(stale, [], "entries of no GET route");
  assert.equal(pages.size, DASHBOARD_PAGES.length, "one entry per route");
});

browserTest("the dashboard's pages in a real browser", async ({ browser, t }) => {
  await using world = await openDashboardWorld(browser);
  for (const page of DASHBOARD_PAGES) {
    for (const as of page.as) {
      for (const viewport of [DESKTOP, PHONE]) {
        await t.step(
          `${page.route} as ${as} at ${viewport.width}px`,
          () => checkDashboardPage(browser, world, page, as, viewport),
        );
      }
    }
    await t.step(
      `${page.route}: refused to those it does not name`,
      () => checkRefused(browser, world, page),
    );
  }
});
