import assert from "node:assert/strict";
import { textWidth } from "../../routes/pages/charts/chart_text.ts";
import { placeLabels } from "../../routes/pages/charts/tick_labels.ts";

const DAY = 86_400_000;
const MONDAY = Date.UTC(2026, 9, 19);
const day = (x: number) => new Date(x).toISOString().slice(0, 10);
/** Five weekly ticks spread over 78..464 of a 480-wide chart: 96.5 units apart. */
const weeks = [0, 7, 14, 21, 28].map((d) => MONDAY + d * DAY);
const position = (x: number) => 78 + ((x - MONDAY) / (28 * DAY)) * 386;

Deno.test("labels are centred on their ticks; the last ends at its tick rather than leave the chart", () => {
  const placed = placeLabels(weeks.slice(0, 2), { position, format: day, width: 480, gap: 8 });
  assert.deepEqual(placed.map((l) => [l.text, l.anchor]), [["2026-10-19", "middle"], [
    "2026-10-26",
    "middle",
  ]]);
  const [last] = placeLabels([weeks[4]!], { position, format: day, width: 480, gap: 8 });
  assert.deepEqual([last!.at, last!.anchor], [464, "end"]);
});

Deno.test("labels that would touch are left out, the last one kept", () => {
  const placed = placeLabels(weeks, { position, format: day, width: 480, gap: 8 });
  // The last label, ending at its tick, would touch the fourth: the fourth is left out.
  assert.deepEqual(placed.map((l) => l.text), ["2026-10-19", "2026-10-26", "2026-11-02", "2026-11-16"]);
  const ends = placed.map((l) => {
    const width = textWidth(l.text);
    const left = l.anchor === "end" ? l.at - width : l.anchor === "start" ? l.at : l.at - width / 2;
    return { left, right: left + width };
  });
  ends.slice(1).forEach((end, i) => assert.ok(end.left >= ends[i]!.right + 8, placed[i + 1]!.text));
  assert.ok(ends.every(({ left, right }) => left >= 0 && right <= 480));
});
