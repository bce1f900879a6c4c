/**
 * The checks every public page is held to (tests/browser/public_pages_test.ts), each on a visit of
 * its own: rendered at desktop width (no problem seen by `visitPage`, its own `expect`, axe, the
 * Tab walk), at phone width (nothing scrolls sideways but focusable containers), and with
 * JavaScript off.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { axeViolations } from "./axe.ts";
import type { Site } from "./browser_site.ts";
import { layoutProblems, widths } from "./in_page.ts";
import { DESKTOP, PHONE, type Viewport, type Visit, type VisitOptions, visitPage } from "./page_visit.ts";
import type { PublicPage } from "./public_pages.ts";
import { tabWalk } from "./tab_walk.ts";

/** A visit of `page` on `site`, waited for until it has rendered. */
export async function visitRendered(
  browser: Browser,
  site: Site,
  page: PublicPage,
  options: Omit<VisitOptions, "status"> = {},
): Promise<Visit> {
  const status = page.status?.[site.data];
  const visit = await visitPage(browser, { base: site.base, path: page.path }, {
    ...options,
    ...(status === undefined ? {} : { status }),
  });
  try {
    await visit.page.locator(page.ready ?? "main").first().waitFor();
  } catch (error) {
    await visit.close();
    throw error;
  }
  return visit;
}

function assertNoProblems(visit: Visit, where: string): void {
  assert.deepEqual(visit.problems(), [], `${where}: what went wrong`);
}

/** Desktop width, JavaScript on: no problem, its own checks, no serious axe violation, every control reached by Tab. */
export async function checkRendered(browser: Browser, site: Site, page: PublicPage): Promise<void> {
  await using visit = await visitRendered(browser, site, page, { viewport: DESKTOP });
  await page.expect?.(visit.page);
  assert.deepEqual(
    await axeViolations(visit.page, page.axeExcepted ? { excepted: page.axeExcepted } : {}),
    [],
    `${page.path}: serious or critical axe violations`,
  );
  if (page.keyboardExcepted === undefined) {
    const walk = await tabWalk(visit.page);
    assert.deepEqual(walk.missed, [], `${page.path}: elements the Tab key never reached`);
  }
  assertNoProblems(visit, page.path);
}

/**
 * Phone width: nothing scrolls sideways but containers a keyboard can focus (and not those the
 * page says fit), chart text at least 11 px; no problem.
 */
export async function checkNarrow(
  browser: Browser,
  site: Site,
  page: PublicPage,
  viewport: Viewport = PHONE,
) {
  await using visit = await visitRendered(browser, site, page, { viewport });
  assert.deepEqual(await visit.page.evaluate(layoutProblems), [], `${page.path} at ${viewport.width}px`);
  for (const selector of page.fitsNarrow ?? []) {
    if (await visit.page.locator(selector).count() === 0) continue; // not on this data set's page
    const { content, shown } = await visit.page.evaluate(widths, selector);
    assert.ok(content <= shown, `${selector} fits at ${viewport.width}px: ${content}px in ${shown}px`);
  }
  assertNoProblems(visit, `${page.path} at ${viewport.width}px`);
}

/** JavaScript off: the page still renders its content, with no problem. */
export async function checkWithoutJavaScript(browser: Browser, site: Site, page: PublicPage): Promise<void> {
  await using visit = await visitRendered(browser, site, page, { javaScript: false });
  const text = (await visit.page.locator("main").first().innerText()).trim();
  assert.ok(text.length > 0, `${page.path} without JavaScript shows its content`);
  assertNoProblems(visit, `${page.path} without JavaScript`);
}
