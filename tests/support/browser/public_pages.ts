/**
 * The public pages, as the browser tests (tests/browser/public_pages_test.ts) and
 * `deno task screenshots` know them: one entry per page. A new page is a new entry here.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { DataSet } from "./browser_site.ts";
import { countOperations } from "./in_page.ts";

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
}

export const PUBLIC_PAGES: readonly PublicPage[] = [
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
