/**
 * The charts' text, sized for a phone: a chart is drawn in a viewBox `CHART_WIDTH` wide, shown at
 * most 40rem wide, and the stylesheet gives its text `CHART_FONT` units below that width (on a
 * 390 px phone the chart is about 367 px wide: 15 units are 11.5 px) and smaller units on a wider
 * screen. Layouts leave room for text of `CHART_FONT`.
 */

/** The width of every chart's viewBox, in SVG units. */
export const CHART_WIDTH = 480;

/** The largest font-size of chart text, in SVG units (assets/site_css.ts says the same). */
export const CHART_FONT = 15;

/** Characters about 0.35 em wide; digits and most letters are about 0.62 em. */
const NARROW = /[\s.,:;'|\-–il]/;

/** About how wide `text` is written at `CHART_FONT`. */
export function textWidth(text: string): number {
  let ems = 0;
  for (const char of text) ems += NARROW.test(char) ? 0.35 : 0.62;
  return ems * CHART_FONT;
}
