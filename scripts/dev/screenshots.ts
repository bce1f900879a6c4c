/**
 * `deno task screenshots [NAME…]`: PNG screenshots of the public pages and the dashboard's at
 * desktop and phone width, written to docs/screenshots/<name>-desktop.png and <name>-phone.png. The
 * pages are those of tests/support/browser/public_pages.ts and, named `dashboard-<name>`, of
 * tests/support/browser/dashboard_pages.ts (a page added there is taken here too), or only those
 * named. The service runs in this process on the populated data set of the browser tests, on a
 * fixed clock from a fixed seed, so the figures are the same on every run; the dashboard's on the
 * populated dashboard of those tests, signed in (as an owner where the page is a member's)
 * through Chromium's virtual authenticator. Needs Chromium (`apt-get install chromium`, or
 * `FGW_CHROMIUM=/path/to/chrome`).
 */
import type { Browser } from "playwright-core";
import { BROWSER_IGNORED, launchBrowser } from "../../tests/support/browser/browser_host.ts";
import { openSite } from "../../tests/support/browser/browser_site.ts";
import { pageHeight } from "../../tests/support/browser/in_page.ts";
import { visitDashboardPage } from "../../tests/support/browser/dashboard_checks.ts";
import { DASHBOARD_PAGES } from "../../tests/support/browser/dashboard_pages.ts";
import { openDashboardWorld } from "../../tests/support/browser/dashboard_world.ts";
import { visitRendered } from "../../tests/support/browser/page_checks.ts";
import { DESKTOP, PHONE, type Viewport, type Visit } from "../../tests/support/browser/page_visit.ts";
import { PUBLIC_PAGES } from "../../tests/support/browser/public_pages.ts";

const OUT = new URL("../../docs/screenshots/", import.meta.url);
const WIDTHS: readonly [string, Viewport][] = [["desktop", DESKTOP], ["phone", PHONE]];
/** A long page is cut after this many screens (the top of it is what a reader sees first). */
const MAX_SCREENS = 3;

/** Saves the top of the visited page (at most `MAX_SCREENS` screens) as `<name>-<label>.png`; its problems (`where` names the page in the log). */
async function shoot(
  visit: Visit,
  shot: { where: string; name: string },
  label: string,
  viewport: Viewport,
): Promise<number> {
  const { name } = shot;
  const { page } = visit;
  const height = await page.evaluate(pageHeight);
  await page.screenshot({
    path: new URL(`${name}-${label}.png`, OUT).pathname,
    fullPage: true,
    clip: { x: 0, y: 0, width: viewport.width, height: Math.min(height, MAX_SCREENS * viewport.height) },
  });
  console.log(`${shot.where} (${label}) → docs/screenshots/${name}-${label}.png`);
  for (const problem of visit.problems()) console.error(`  ${problem}`);
  return visit.problems().length;
}

/** The public pages named (all when `names` is empty), on the populated data set; their problems. */
async function shootPublic(browser: Browser, names: readonly string[]): Promise<number> {
  const pages = PUBLIC_PAGES.filter((page) => names.length === 0 || names.includes(page.name));
  if (pages.length === 0) return 0;
  await using site = await openSite("populated");
  let problems = 0;
  for (const page of pages) {
    for (const [label, viewport] of WIDTHS) {
      await using visit = await visitRendered(browser, site, page, { viewport });
      problems += await shoot(visit, { where: page.path, name: page.name }, label, viewport);
    }
  }
  return problems;
}

/** The dashboard's pages named (all when `names` is empty), as an owner where a member's; their problems. */
async function shootDashboard(browser: Browser, names: readonly string[]): Promise<number> {
  const pages = DASHBOARD_PAGES.filter((page) =>
    names.length === 0 || names.includes(`dashboard-${page.name}`)
  );
  if (pages.length === 0) return 0;
  await using world = await openDashboardWorld(browser);
  let problems = 0;
  for (const page of pages) {
    const as = page.as.includes("owner") ? "owner" : page.as[0]!;
    for (const [label, viewport] of WIDTHS) {
      await using visit = await visitDashboardPage(browser, world, page, as, { viewport });
      problems += await shoot(visit, { where: page.route, name: `dashboard-${page.name}` }, label, viewport);
    }
  }
  return problems;
}

async function main(names: readonly string[]): Promise<number> {
  if (BROWSER_IGNORED) {
    console.error(
      `Cannot take screenshots: ${BROWSER_IGNORED} (apt-get install chromium, or set FGW_CHROMIUM)`,
    );
    return 1;
  }
  const known = [
    ...PUBLIC_PAGES.map((page) => page.name),
    ...DASHBOARD_PAGES.map((page) => `dashboard-${page.name}`),
  ];
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    console.error(`No such page: ${unknown.join(", ")} (pages: ${known.join(", ")})`);
    return 2;
  }
  await Deno.mkdir(OUT, { recursive: true });
  const browser = await launchBrowser();
  try {
    const problems = await shootPublic(browser, names) + await shootDashboard(browser, names);
    return problems === 0 ? 0 : 1;
  } finally {
    await browser.close();
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
