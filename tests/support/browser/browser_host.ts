/**
 * The browser of this machine for the tests that drive one: Debian's `chromium` (or the program
 * `FGW_CHROMIUM` names), driven by `playwright-core`. Without it those tests are reported as
 * ignored, with the reason in their name, so a machine without Chromium still runs the rest of
 * the suite; with `FGW_REQUIRE_BROWSER=1` (set by `.ci/run`) they run anyway and fail.
 */
import { type Browser, chromium } from "playwright-core";

/** The browser program: `FGW_CHROMIUM`, else Debian's package. */
export const CHROMIUM_PATH = Deno.env.get("FGW_CHROMIUM") ?? "/usr/bin/chromium";

async function runs(program: string): Promise<boolean> {
  try {
    const command = new Deno.Command(program, { args: ["--version"], stdout: "null", stderr: "null" });
    return (await command.output()).success;
  } catch (error) {
    // Spawning throws when there is no such program.
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Why browser tests are ignored here, or null when Chromium runs. */
export const BROWSER_IGNORED = await runs(CHROMIUM_PATH) ? null : `${CHROMIUM_PATH} not found`;

/** `FGW_REQUIRE_BROWSER=1`: a missing browser fails these tests instead of ignoring them. */
const requireBrowser = Deno.env.get("FGW_REQUIRE_BROWSER") === "1";

/**
 * Starts the browser, headless. As root Chromium refuses to start without `--no-sandbox` (its
 * sandbox needs an unprivileged user); the pages it opens are the service's own.
 */
export async function launchBrowser(): Promise<Browser> {
  const root = Deno.uid() === 0;
  return await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: root ? ["--no-sandbox"] : [],
    timeout: 30_000,
  });
}

/** What a browser test is handed: the browser, shared by its steps, and the test's context. */
export interface BrowserTestContext {
  browser: Browser;
  t: Deno.TestContext;
}

/**
 * Registers a test that drives the browser: one browser for the whole test, closed after it; its
 * checks are `step`s, so each is reported on its own while the browser starts once per file (see
 * the module doc for a machine without Chromium).
 */
export function browserTest(name: string, fn: (context: BrowserTestContext) => Promise<void>): void {
  const ignore = BROWSER_IGNORED !== null && !requireBrowser;
  Deno.test({
    name: ignore ? `${name} (ignored: ${BROWSER_IGNORED})` : name,
    ignore,
    fn: async (t) => {
      if (BROWSER_IGNORED !== null) {
        throw new Error(`Cannot run the test: ${BROWSER_IGNORED}, and FGW_REQUIRE_BROWSER=1`);
      }
      const browser = await launchBrowser();
      try {
        await fn({ browser, t });
      } finally {
        await browser.close();
      }
    },
  });
}
