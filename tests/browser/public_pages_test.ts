/**
 * Every public page (tests/support/browser/public_pages.ts) in Chromium, on each data set it
 * names: rendered at desktop width with no console error, failed request or request to another
 * host, with no serious or critical axe violation and every control reached by Tab; at phone width
 * nothing scrolls sideways (but focusable containers) and chart text is at least 11 px; with
 * JavaScript off it still shows its content. One browser for the
 * file; one site per data set.
 */
import { browserTest } from "../support/browser/browser_host.ts";
import { DATA_SETS, openSite } from "../support/browser/browser_site.ts";
import { checkNarrow, checkRendered, checkWithoutJavaScript } from "../support/browser/page_checks.ts";
import { PUBLIC_PAGES } from "../support/browser/public_pages.ts";

browserTest("the public pages in a real browser", async ({ browser, t }) => {
  for (const data of DATA_SETS) {
    const pages = PUBLIC_PAGES.filter((page) => (page.on ?? DATA_SETS).includes(data));
    if (pages.length === 0) continue;
    await using site = await openSite(data);
    for (const page of pages) {
      const where = `${page.path} (${data} data set)`;
      await t.step(
        `${where}: renders cleanly, passes axe and the Tab walk`,
        () => checkRendered(browser, site, page),
      );
      await t.step(`${where}: at phone width`, () => checkNarrow(browser, site, page));
      if (!page.needsJavaScript) {
        await t.step(`${where}: without JavaScript`, () => checkWithoutJavaScript(browser, site, page));
      }
    }
  }
});
