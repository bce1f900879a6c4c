/**
 * The checks every dashboard page (dashboard_pages.ts) is held to, as each audience it names and
 * at each width, on the world of dashboard_world.ts: no console error (a refused
 * Content-Security-Policy is one), failed request or error status; `Cache-Control: no-store` and the pages'
 * Content-Security-Policy (nothing inline); nothing scrolls sideways; at desktop width its
 * own checks, no serious axe violation, every control reached by Tab, and a viewer sees none of
 * the owner's forms.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { PAGE_CSP } from "../../../routes/pages/kit/page_answer.ts";
import { axeViolations } from "./axe.ts";
import type { DashboardPage } from "./dashboard_pages.ts";
import type { Audience, DashboardWorld } from "./dashboard_world.ts";
import { layoutProblems } from "./in_page.ts";
import { DESKTOP, type Viewport, type Visit, type VisitOptions, visitPage } from "./page_visit.ts";
import { tabWalk } from "./tab_walk.ts";

/** A visit of `page` as `as` on the world, waited for until it has rendered. */
export async function visitDashboardPage(
  browser: Browser,
  world: DashboardWorld,
  page: DashboardPage,
  as: Audience,
  options: Omit<VisitOptions, "storageState"> = {},
): Promise<Visit> {
  const visit = await visitPage(browser, { base: world.site.base, path: page.path(world) }, {
    ...options,
    ...(as === "signed-out" ? {} : { storageState: world.members[as] }),
  });
  try {
    await visit.page.locator(page.ready ?? "main h1").first().waitFor();
  } catch (error) {
    await visit.close();
    throw error;
  }
  return visit;
}

/** The checks of the module doc, for one audience at one width. */
export async function checkDashboardPage(
  browser: Browser,
  world: DashboardWorld,
  page: DashboardPage,
  as: Audience,
  viewport: Viewport,
): Promise<void> {
  const where = `${page.name} as ${as} at ${viewport.width}px`;
  await using visit = await visitDashboardPage(browser, world, page, as, { viewport });
  const headers = visit.response.headers();
  assert.match(headers["cache-control"] ?? "", /\bno-store\b/, `${where}: Cache-Control`);
  // Nothing inline, nothing from another host: the console reports what the browser refuses.
  assert.equal(headers["content-security-policy"], PAGE_CSP, `${where}: Content-Security-Policy`);
  assert.deepEqual(await visit.page.evaluate(layoutProblems), [], `${where}: layout`);
  if (viewport === DESKTOP) {
    await page.expect?.(visit.page, as);
    for (const selector of page.ownerOnly ?? []) {
      const count = await visit.page.locator(selector).count();
      if (as === "owner") assert.ok(count > 0, `${where}: the owner's ${selector}`);
      else assert.equal(count, 0, `${where}: no ${selector} for a ${as}`);
    }
    assert.deepEqual(await axeViolations(visit.page), [], `${where}: serious or critical axe violations`);
    const walk = await tabWalk(visit.page);
    assert.deepEqual(walk.missed, [], `${where}: elements the Tab key never reached`);
  }
  assert.deepEqual(visit.problems(), [], `${where}: what went wrong`);
}

/** JavaScript off: the page still shows its content (a ceremony's button stays, inert), with no problem. */
export async function checkWithoutJavaScript(
  browser: Browser,
  world: DashboardWorld,
  page: DashboardPage,
  as: Audience,
): Promise<void> {
  await using visit = await visitDashboardPage(browser, world, page, as, { javaScript: false });
  const text = (await visit.page.locator("main").innerText()).trim();
  assert.ok(text.length > 0, `${page.name} as ${as} without JavaScript shows its content`);
  assert.deepEqual(visit.problems(), [], `${page.name} as ${as} without JavaScript`);
}

/**
 * The audiences a page refuses: a member of a role it does not name sees the 403 page (clean, no
 * other problem); nobody signed in is sent to the sign-in page.
 */
export async function checkRefused(
  browser: Browser,
  world: DashboardWorld,
  page: DashboardPage,
): Promise<void> {
  if (page.as.includes("signed-out")) return;
  const path = page.path(world);
  const anonymous = await fetch(`${world.site.base}${path}`, {
    headers: { accept: "text/html" },
    redirect: "manual",
  });
  await anonymous.body?.cancel();
  assert.equal(anonymous.status, 303, `${page.name} signed out`);
  assert.equal(anonymous.headers.get("location"), "/dashboard/sign-in");
  for (const role of ["owner", "viewer"] as const) {
    if (page.as.includes(role)) continue;
    await using visit = await visitPage(browser, { base: world.site.base, path }, {
      status: 403,
      storageState: world.members[role],
    });
    assert.deepEqual(visit.problems(), [], `${page.name} as ${role}: refused cleanly`);
  }
}
