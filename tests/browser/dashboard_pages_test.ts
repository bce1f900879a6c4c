/**
 * Every dashboard page (tests/support/browser/dashboard_pages.ts) in Chromium, on a populated
 * dashboard, as each audience it names, at desktop and phone width (the checks of
 * tests/support/browser/dashboard_checks.ts) and with JavaScript off; the audiences it refuses are
 * refused. And every GET route of the dashboard that answers a page has an entry, so a new page
 * cannot be left out.
 */
import assert from "node:assert/strict";
import { browserTest } from "../support/browser/browser_host.ts";
import {
  checkDashboardPage,
  checkRefused,
  checkWithoutJavaScript,
} from "../support/browser/dashboard_checks.ts";
import { DASHBOARD_NOT_PAGES, DASHBOARD_PAGES, unlistedRoutes } from "../support/browser/dashboard_pages.ts";
import { openDashboardSite } from "../support/browser/dashboard_site.ts";
import { openDashboardWorld } from "../support/browser/dashboard_world.ts";
import { DESKTOP, PHONE } from "../support/browser/page_visit.ts";

Deno.test("every GET route of the dashboard is a listed page or a listed non-page", async () => {
  await using site = await openDashboardSite();
  const { app } = site.service;
  assert.deepEqual(unlistedRoutes(app), [], "GET routes with no entry in DASHBOARD_PAGES");
  const routes = new Set(app.routes.filter((route) => route.method === "GET").map((route) => route.path));
  const listed = [...DASHBOARD_PAGES.map((page) => page.route), ...Object.keys(DASHBOARD_NOT_PAGES)];
  assert.deepEqual(listed.filter((route) => !routes.has(route)), [], "entries of no GET route");
  assert.equal(
    new Set(DASHBOARD_PAGES.map((page) => page.route)).size,
    DASHBOARD_PAGES.length,
    "one entry a route",
  );
});

Deno.test("a dashboard page route with no entry is named", async () => {
  await using site = await openDashboardSite();
  const { app } = site.service;
  app.get("/dashboard/members/:memberId", (c) => c.html("<h1>A member</h1>"));
  app.post("/dashboard/members", (c) => c.redirect("/dashboard/members", 303));
  assert.deepEqual(unlistedRoutes(app), ["/dashboard/members/:memberId"]);
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
      `${page.route} as ${page.as[0]} without JavaScript`,
      () => checkWithoutJavaScript(browser, world, page, page.as[0]!),
    );
    await t.step(
      `${page.route}: refused to those it does not name`,
      () => checkRefused(browser, world, page),
    );
  }
});
