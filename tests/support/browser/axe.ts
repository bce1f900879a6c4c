/**
 * axe-core (npm `axe-core`) run inside a visited page: its source is evaluated in the page through
 * the browser's debugging protocol, which the page's Content-Security-Policy does not govern (an
 * injected script tag would be refused, as any inline script is).
 */
import axeSource from "axe-core/axe.min.js" with { type: "text" };
import type { Page } from "playwright-core";
import { runAxe } from "./in_page.ts";

/** A violation of one axe rule, with the elements that break it. */
export interface AxeViolation {
  rule: string;
  impact: string;
  help: string;
  /** CSS selectors of the elements, at most five. */
  targets: string[];
}

/** The impacts a page must not have. */
const BLOCKING = new Set(["serious", "critical"]);

/**
 * The serious and critical violations axe finds on the page, but those of the rules in `excepted`
 * (a rule id and why it is not held against this page).
 */
export async function axeViolations(
  page: Page,
  options: { excepted?: Readonly<Record<string, string>> } = {},
): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate(runAxe);
  return results.violations
    .filter((violation) =>
      BLOCKING.has(violation.impact ?? "") && !(violation.id in (options.excepted ?? {}))
    )
    .map((violation) => ({
      rule: violation.id,
      impact: violation.impact ?? "",
      help: violation.help,
      targets: violation.nodes.slice(0, 5).map((node) => node.target.map(String).join(" ")),
    }));
}
