/**
 * One visit of a page in its own browser context, watched for what a reader would notice or the
 * page should never do: console errors (a refused Content-Security-Policy is one), uncaught
 * exceptions, failed requests, error statuses, and any request to a host other than the service's,
 * which is refused before it leaves the browser.
 */
import type { Browser, BrowserContextOptions, Page, Response } from "playwright-core";

export interface Viewport {
  width: number;
  height: number;
}

export const DESKTOP: Viewport = { width: 1280, height: 800 };
export const PHONE: Viewport = { width: 390, height: 844 };

export interface VisitOptions {
  /** Default `DESKTOP`. */
  viewport?: Viewport;
  /** Default true; false visits the page as a browser with JavaScript turned off. */
  javaScript?: boolean;
  /** The status the page itself answers (a deliberate 400 or 404 page); default 200. */
  status?: number;
  /** The browser's time zone (an IANA name); default the host's. */
  timezoneId?: string;
  /** Cookies the browser already holds (a signed-in member's session); default none. */
  storageState?: BrowserContextOptions["storageState"];
}

export interface Visit {
  page: Page;
  /** The answer to the page's own request. */
  response: Response;
  /** What went wrong so far, one line each; empty when nothing did. */
  problems(): string[];
  /** Closes the visit's context. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** How long a step of a visit may take (a load, a wait for an element). */
const STEP_TIMEOUT_MS = 15_000;

/** Opens `base` + `path` in a new context of `browser` (see the module doc). */
export async function visitPage(
  browser: Browser,
  url: { base: string; path: string },
  options: VisitOptions = {},
): Promise<Visit> {
  const origin = new URL(url.base).origin;
  const address = new URL(url.path, url.base).href;
  const status = options.status ?? 200;
  const context = await browser.newContext({
    viewport: options.viewport ?? DESKTOP,
    javaScriptEnabled: options.javaScript ?? true,
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
    ...(options.storageState ? { storageState: options.storageState } : {}),
  });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const problems: string[] = [];
  await context.route("**/*", (route) => {
    const requested = route.request().url();
    if (new URL(requested).origin === origin) return route.continue();
    problems.push(`request to another host: ${requested}`);
    return route.abort("blockedbyclient");
  });
  const page = await context.newPage();
  const expected = (responseUrl: string, code: number) => responseUrl === address && code === status;
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const where = message.location().url;
    // Chromium reports a page's own error status as a console error: expected for a 404 page.
    if (expected(where, status) && message.text().includes(`status of ${status}`)) return;
    // A refused request to another host is reported once, above.
    if (where && new URL(where).origin !== origin && message.text().includes("ERR_BLOCKED_BY_CLIENT")) return;
    problems.push(`console error: ${message.text()}${where ? ` (${where})` : ""}`);
  });
  page.on("pageerror", (error) => problems.push(`uncaught exception: ${error.message}`));
  page.on("requestfailed", (request) => {
    const reason = request.failure()?.errorText ?? "failed";
    if (new URL(request.url()).origin !== origin) return; // already reported above
    problems.push(`request failed: ${request.method()} ${request.url()}: ${reason}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400 && !expected(response.url(), response.status())) {
      problems.push(`status ${response.status()}: ${response.request().method()} ${response.url()}`);
    }
  });
  const response = await page.goto(address, { waitUntil: "load" });
  if (!response) throw new Error(`Cannot visit ${address}: no response`);
  if (response.status() !== status) problems.push(`the page answered ${response.status()}, not ${status}`);
  const close = () => context.close();
  return { page, response, problems: () => [...problems], close, [Symbol.asyncDispose]: close };
}
