/**
 * The keyboard's view of a page: Tab pressed from the top until focus comes back around, and
 * which elements a keyboard user must reach that it never did.
 */
import type { Page } from "playwright-core";
import { blurAll, type ElementLabel, focusedElement, numberFocusables } from "./in_page.ts";

export interface TabWalk {
  /** The labels of the elements Tab focused, in order. */
  focused: string[];
  /** Elements that should be reachable (links, buttons, fields, tabindex ≥ 0) that Tab never focused. */
  missed: string[];
}

/** Walks the page with Tab, at most `maxPresses` times (default 400). */
export async function tabWalk(page: Page, options: { maxPresses?: number } = {}): Promise<TabWalk> {
  const reachable = await page.evaluate(numberFocusables);
  await page.evaluate(blurAll);
  const focused: ElementLabel[] = [];
  const seen = new Set<number>();
  for (let press = 0; press < (options.maxPresses ?? 400); press++) {
    await page.keyboard.press("Tab");
    const element = await page.evaluate(focusedElement);
    // A date field's day, month and year each take a Tab: the same element again, not a way round.
    if (element !== null && element.index >= 0 && element.index === focused.at(-1)?.index) continue;
    // Focus left the document (the browser's own controls), or came back to the first element.
    if (element === null || (element.index >= 0 && seen.has(element.index))) break;
    focused.push(element);
    if (element.index >= 0) seen.add(element.index);
  }
  return {
    focused: focused.map((element) => element.label),
    missed: reachable.filter((element) => !seen.has(element.index)).map((element) => element.label),
  };
}
