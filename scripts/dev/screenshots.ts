/**
 * `deno task screenshots [NAME…]`: PNG screenshots of the public pages at desktop and phone width,
 * written to docs/screenshots/<name>-desktop.png and <name>-phone.png. The pages are those of
 * tests/support/browser/public_pages.ts (a page added there is taken here too), or only those
 * named. The service runs in this process on the populated data set of the browser tests, on a
 * fixed clock from a fixed seed, so the figures are the same on every run. Needs Chromium
 * (`apt-get install chromium`, or `FGW_CHROMIUM=/path/to/chrome`).
 */
import { BROWSER_IGNORED, launchBrowser } from "../../tests/support/browser/browser_host.ts";
import { openSite } from "../../tests/support/browser/browser_site.ts";
import { pageHeight } from "../../tests/support/browser/in_page.ts";
import { visitRendered } from "../../tests/support/browser/page_checks.ts";
import { DESKTOP, PHONE, type Viewport } from "../../tests/support/browser/page_visit.ts";
import { PUBLIC_PAGES } from "../../tests/support/browser/public_pages.ts";

const OUT = new URL("../../docs/screenshots/", import.meta.url);
const WIDTHS: readonly [string, Viewport][] = [["desktop", DESKTOP], ["phone", PHONE]];
/** A long page is cut after this many screens (the top of it is what a reader sees first). */
const MAX_SCREENS = 3;

async function main(names: readonly string[]): Promise<number> {
  if (BROWSER_IGNORED) {
    console.error(
      `Cannot take screenshots: ${BROWSER_IGNORED} (apt-get install chromium, or set FGW_CHROMIUM)`,
    );
    return 1;
  }
  const unknown = names.filter((name) => !PUBLIC_PAGES.some((page) => page.name === name));
  if (unknown.length > 0) {
    console.error(
      `No such page: ${unknown.join(", ")} (pages: ${PUBLIC_PAGES.map((p) => p.name).join(", ")})`,
    );
    return 2;
  }
  const pages = PUBLIC_PAGES.filter((page) => names.length === 0 || names.includes(page.name));
  await Deno.mkdir(OUT, { recursive: true });
  await using site = await openSite("populated");
  const browser = await launchBrowser();
  let problems = 0;
  try {
    for (const page of pages) {
      for (const [label, viewport] of WIDTHS) {
        await using visit = await visitRendered(browser, site, page, { viewport });
        const height = await visit.page.evaluate(pageHeight);
        const file = new URL(`${page.name}-${label}.png`, OUT);
        await visit.page.screenshot({
          path: file.pathname,
          fullPage: true,
          clip: {
            x: 0,
            y: 0,
            width: viewport.width,
            height: Math.min(height, MAX_SCREENS * viewport.height),
          },
        });
        console.log(`${page.path} (${label}) → docs/screenshots/${page.name}-${label}.png`);
        for (const problem of visit.problems()) console.error(`  ${problem}`);
        problems += visit.problems().length;
      }
    }
  } finally {
    await browser.close();
  }
  return problems === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
