/**
 * The public pages, as the browser tests (tests/browser/public_pages_test.ts) and
 * `deno task screenshots` know them: one entry per page. A new page is a new entry here.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { DataSet } from "./browser_site.ts";
import { countOperations, widths } from "./in_page.ts";
import { worldIds } from "../populated/populated_service.ts";

/** The uids of the leaderboard's miner rows, in the order shown. */
async function boardUids(page: Page): Promise<number[]> {
  const uids = await page.locator("tbody.miners tr").evaluateAll((rows) =>
    rows.map((row) => Number(row.getAttribute("data-uid")))
  );
  return uids;
}

/** Sorts the board by clicking a header as a reader would, and checks the order and `aria-sort`. */
async function checkBoardSorts(page: Page): Promise<void> {
  const before = await boardUids(page);
  assert.ok(before.length >= 2, `the board lists ${before.length} miners`);
  await page.getByRole("link", { name: /^UID/ }).click();
  await page.waitForURL(/sort=uid/);
  const ascending = await boardUids(page);
  assert.deepEqual(ascending, before.toSorted((a, b) => a - b), "sorted by uid, ascending");
  const header = page.locator("th[aria-sort]");
  assert.equal(await header.count(), 1);
  assert.equal(await header.getAttribute("aria-sort"), "ascending");
  await page.getByRole("link", { name: /^UID/ }).click();
  await page.waitForURL(/order=desc/);
  assert.deepEqual(await boardUids(page), ascending.toReversed(), "the same header again: descending");
  assert.equal(await page.locator("th[aria-sort]").getAttribute("aria-sort"), "descending");
}

export interface PublicPage {
  /** Names the page in test names and in its screenshots' files (`docs/screenshots/<name>-desktop.png`). */
  name: string;
  /** Its path; the populated data set's ids are in `worldIds()` (tests/support/populated/). */
  path: string;
  /** A CSS selector of an element on the page once it has rendered (default `main`). */
  ready?: string;
  /** The data sets it is checked on (default both). */
  on?: readonly DataSet[];
  /** The status the page answers on a data set, when not 200 (a miner page on the empty set: 404). */
  status?: Partial<Record<DataSet, number>>;
  /** The page is an application that needs JavaScript: not checked with JavaScript off. */
  needsJavaScript?: boolean;
  /** Why the Tab walk is not held against this page; absent: every interactive element must be reached. */
  keyboardExcepted?: string;
  /** axe rules not held against this page, each with why. */
  axeExcepted?: Readonly<Record<string, string>>;
  /** More checks of the rendered page (desktop, JavaScript on), after `ready`. */
  expect?: (page: Page) => Promise<void>;
  /** Elements (CSS selectors) that must not scroll sideways at phone width where they are shown. */
  fitsNarrow?: readonly string[];
}

/** The event ids of the catalog table on the page, in order. */
function listedEvents(page: Page): Promise<string[]> {
  return page.locator("tr[data-event-id]").evaluateAll((rows) =>
    rows.map((row) => row.getAttribute("data-event-id") ?? "")
  );
}

/** Every event id `/v1/events` lists for `query`, following its cursors. */
async function apiEvents(origin: string, query: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const search: URLSearchParams = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const body: { items: { id: string }[]; nextCursor: string | null } =
      await (await fetch(`${origin}/v1/events?${search}`)).json();
    ids.push(...body.items.map((event) => event.id));
    cursor = body.nextCursor;
  } while (cursor !== null);
  return ids;
}

/**
 * Filters the catalog through its form as a reader would (resolved markets, ended included, 10 a
 * page), walks its pages by "Next page", and compares the events with `/v1/events`' for that query:
 * the same, more than one page of them, and a strict subset of the whole catalog.
 */
async function checkCatalogFilter(page: Page): Promise<void> {
  if (await page.locator("tr[data-event-id]").count() === 0) return; // the empty data set
  await page.getByLabel("Ended markets").selectOption("1");
  await page.getByLabel("Has a resolution").selectOption("1");
  await page.getByLabel("Events per page (1..200)").fill("10");
  await page.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL(/hasResolution=1/);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get("includeEnded"), "1");
  assert.equal(url.searchParams.get("limit"), "10");
  const shown: string[] = [];
  let pages = 0;
  for (;;) {
    shown.push(...await listedEvents(page));
    pages++;
    const next = page.getByRole("link", { name: "Next page" });
    if (await next.count() === 0) break;
    await next.click();
    await page.waitForLoadState();
  }
  const query = Object.fromEntries([...url.searchParams].filter(([name]) => name !== "cursor"));
  const expected = await apiEvents(url.origin, query);
  assert.deepEqual(shown, expected, "the form's pages list the JSON route's events");
  assert.ok(pages > 1, `the filtered catalog spans ${pages} page(s)`);
  const all = await apiEvents(url.origin, { includeEnded: "1", limit: "200" });
  assert.ok(expected.length > 0 && expected.length < all.length, "a non-empty strict subset");
  assert.ok(expected.every((id) => all.includes(id)));
}

export const PUBLIC_PAGES: readonly PublicPage[] = [
  { name: "home", path: "/", ready: "main h1" },
  {
    name: "leaderboard",
    path: "/leaderboard",
    ready: "main h1",
    expect: async (page) => {
      // The empty data set's board is empty: its page says why (the page kit's tests hold the text).
      if (await page.locator("tbody.miners tr").count() === 0) return;
      assert.equal(await page.locator("tbody.baselines tr").count(), 2, "the two baselines are pinned");
      const table = await page.evaluate(widths, '[aria-label="Leaderboard table"]');
      assert.ok(table.content <= table.shown, `every column shows at 1280 px: ${JSON.stringify(table)}`);
      await checkBoardSorts(page);
    },
  },
  { name: "events", path: "/events", ready: "main h1", expect: checkCatalogFilter },
  {
    name: "event-resolved",
    path: `/events/${worldIds().resolvedEvents[0]}`,
    ready: "main h1",
    status: { empty: 404 },
  },
  {
    name: "event-open",
    path: `/events/${worldIds().openEvents[0]}`,
    ready: "main h1",
    status: { empty: 404 },
  },
  { name: "scored", path: "/scored", ready: "main h1" },
  { name: "methodology", path: "/methodology", ready: "main h1", on: ["empty"] },
  {
    name: "miner",
    path: `/miners/${worldIds().topMiner}`,
    ready: "main h1",
    status: { empty: 404 },
    expect: async (page) => {
      if (await page.locator("h1", { hasText: "Not found" }).count() > 0) return; // the empty data set
      assert.ok(await page.locator("svg .point").count() > 0, "its charts have points");
    },
    fitsNarrow: ['[aria-label="Chain figures"]'],
  },
  {
    name: "docs",
    path: "/docs",
    ready: ".opblock",
    // The page does not read the data set.
    on: ["empty"],
    needsJavaScript: true,
    keyboardExcepted: "Swagger UI nests the copy and lock buttons in each operation's button",
    axeExcepted: {
      "color-contrast": "Swagger UI's own colours (its version badge, method labels, grey links)",
      "nested-interactive": "Swagger UI nests the copy and lock buttons in each operation's button",
    },
    expect: async (page) => {
      const { shown, documented } = await page.evaluate(countOperations);
      assert.ok(documented >= 30, `the document has ${documented} operations`);
      assert.equal(shown, documented, "every operation of /openapi.json is listed");
    },
  },
];
