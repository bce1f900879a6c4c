import { textWidth } from "./chart_text.ts";

/** A tick label placed on an x axis: where its tick is, its text, and how it is anchored there. */
export interface PlacedLabel {
  /** The tick's value. */
  value: number;
  /** The tick's position, in SVG units. */
  at: number;
  text: string;
  anchor: "start" | "middle" | "end";
}

export interface PlaceOptions {
  /** The value's position on the axis. */
  position: (value: number) => number;
  format: (value: number) => string;
  /** The chart's width: no label runs past either edge. */
  width: number;
  /** The least room between two labels. */
  gap: number;
}

/**
 * The labels of `ticks` (ascending) as an x axis shows them: centred on their tick unless that
 * would cut them at an edge of the chart (then they start or end at it), and without two that
 * touch: a label too close to the one before is left out, except the last tick's, which is kept
 * in place of those it would touch (the newest point is labelled).
 */
export function placeLabels(ticks: readonly number[], options: PlaceOptions): PlacedLabel[] {
  const placed = ticks.map((value) => place(value, options));
  const kept: PlacedLabel[] = [];
  for (const label of placed) {
    const previous = kept[kept.length - 1];
    if (!previous || apart(previous, label, options.gap)) kept.push(label);
  }
  const last = placed[placed.length - 1];
  if (last && kept[kept.length - 1] !== last) {
    while (kept.length > 0 && !apart(kept[kept.length - 1]!, last, options.gap)) kept.pop();
    kept.push(last);
  }
  return kept;
}

function place(value: number, options: PlaceOptions): PlacedLabel {
  const at = options.position(value), text = options.format(value);
  const half = textWidth(text) / 2;
  const anchor = at - half < 0 ? "start" : at + half > options.width ? "end" : "middle";
  return { value, at, text, anchor };
}

/** The label's left and right ends, in SVG units. */
function extentOf(label: PlacedLabel): [number, number] {
  const width = textWidth(label.text);
  const left = label.anchor === "start"
    ? label.at
    : label.anchor === "end"
    ? label.at - width
    : label.at - width / 2;
  return [left, left + width];
}

function apart(before: PlacedLabel, after: PlacedLabel, gap: number): boolean {
  return extentOf(after)[0] >= extentOf(before)[1] + gap;
}
