/// <reference lib="dom" />
/**
 * Functions that run inside a visited page (`page.evaluate(fn, arg)`): Playwright sends each one's
 * source to the page, so each is self-contained — no imports, no outside names.
 */

/** What a reader sees of an element: its tag, id, and its accessible text, shortened. */
export interface ElementLabel {
  /** The element's place in the walk's numbering (`data-walk`), or -1 when it has none. */
  index: number;
  label: string;
}

/**
 * Numbers every element a keyboard user must be able to reach, in document order (`data-walk`),
 * and returns their labels: links, buttons, form fields, summaries, anything with a tabindex of 0
 * or more; visible ones only (not inside a closed `<details>`).
 */
export function numberFocusables(): ElementLabel[] {
  const selector = "a[href], button, input:not([type=hidden]), select, textarea, summary, " +
    "[tabindex]:not([tabindex='-1'])";
  const elements = [...document.querySelectorAll<HTMLElement>(selector)].filter((element) =>
    !element.matches(":disabled") && element.getClientRects().length > 0 &&
    // A closed <details> shows only its summary: what it folds away is not reachable until opened.
    (element.tagName === "SUMMARY" || !element.parentElement?.closest("details:not([open])")) &&
    getComputedStyle(element).visibility !== "hidden"
  );
  return elements.map((element, index) => {
    element.dataset["walk"] = String(index);
    const text = (element.getAttribute("aria-label") ?? element.textContent ?? "").trim().replace(
      /\s+/g,
      " ",
    );
    const id = element.id ? `#${element.id}` : "";
    return { index, label: `${element.tagName.toLowerCase()}${id} "${text.slice(0, 40)}"` };
  });
}

/** The focused element's number (`data-walk`, -1 when none) and label; null when nothing has focus. */
export function focusedElement(): ElementLabel | null {
  const element = document.activeElement as HTMLElement | null;
  if (!element || element === document.body) return null;
  const text = (element.getAttribute("aria-label") ?? element.textContent ?? "").trim().replace(/\s+/g, " ");
  const id = element.id ? `#${element.id}` : "";
  return {
    index: Number(element.dataset["walk"] ?? -1),
    label: `${element.tagName.toLowerCase()}${id} "${text.slice(0, 40)}"`,
  };
}

/** Moves focus back to the start of the document. */
export function blurAll(): void {
  (document.activeElement as HTMLElement | null)?.blur();
  globalThis.scrollTo(0, 0);
}

/**
 * What breaks a narrow screen: the document scrolling sideways, an element that scrolls sideways
 * that a keyboard cannot focus (it could not be scrolled without a pointer), or chart text shown
 * smaller than 11 px.
 */
export function layoutProblems(): string[] {
  const leastTextPx = 11;
  const problems: string[] = [];
  for (const text of document.querySelectorAll<SVGTextElement>("figure.chart svg text")) {
    const scale = text.getScreenCTM();
    const px = scale ? Math.hypot(scale.a, scale.b) * parseFloat(getComputedStyle(text).fontSize) : 0;
    if (px < leastTextPx) {
      problems.push(`chart text "${text.textContent}" is ${px.toFixed(1)}px (at least ${leastTextPx})`);
    }
  }
  const root = document.scrollingElement ?? document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) {
    problems.push(`the page is ${root.scrollWidth}px wide in a ${root.clientWidth}px window`);
  }
  for (const element of document.querySelectorAll<HTMLElement>("body *")) {
    const overflow = getComputedStyle(element).overflowX;
    const scrolls = (overflow === "auto" || overflow === "scroll") &&
      element.scrollWidth > element.clientWidth + 1;
    if (scrolls && element.tabIndex < 0) {
      problems.push(
        `${element.tagName.toLowerCase()}${
          element.id ? `#${element.id}` : ""
        } scrolls sideways and cannot be focused`,
      );
    }
  }
  return problems;
}

/** What axe's `run` answers, as far as the tests read it. */
export interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

/** Runs axe-core (already evaluated in the page) over the whole document, violations only. */
export function runAxe(): Promise<AxeResults> {
  const axe =
    (window as unknown as { axe: { run(context: Document, options: unknown): Promise<AxeResults> } })
      .axe;
  return axe.run(document, { resultTypes: ["violations"] });
}

/** The operations Swagger UI lists on the page, and those /openapi.json documents. */
export async function countOperations(): Promise<{ shown: number; documented: number }> {
  const document_ = await (await fetch("/openapi.json")).json() as { paths: Record<string, object> };
  const documented = Object.values(document_.paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
  return { shown: document.querySelectorAll(".opblock").length, documented };
}

/** How wide the element `selector` names is and how wide its content: it scrolls sideways when larger. */
export function widths(selector: string): { content: number; shown: number } {
  const element = document.querySelector<HTMLElement>(selector);
  if (!element) throw new Error(`No element ${selector}`);
  return { content: element.scrollWidth, shown: element.clientWidth };
}

/** The height of the whole document, in CSS pixels. */
export function pageHeight(): number {
  return document.documentElement.scrollHeight;
}
