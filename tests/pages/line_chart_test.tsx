import assert from "node:assert/strict";
import { type ChartSeries, LineChart } from "../../routes/pages/charts/line_chart.tsx";
import { htmlOf } from "../../routes/pages/kit/render.ts";

const HOUR = 3_600_000, DAY = 24 * HOUR;
/** Monday 2026-11-23, 00:00 UTC. */
const MONDAY = Date.UTC(2026, 10, 23);
const day = (x: number) => new Date(x).toISOString().slice(0, 10);
const hour = (x: number) => new Date(x).toISOString().slice(5, 16).replace("T", " ");

function chart(series: ChartSeries[], formatX: (x: number) => string, yDomain?: [number, number]) {
  return htmlOf(
    <LineChart
      id="c"
      title="A chart"
      description="What it shows."
      series={series}
      xLabel="When"
      yLabel="Value"
      formatX={formatX}
      formatY={(y) => y.toFixed(3)}
      {...(yDomain ? { yDomain } : {})}
    />,
  );
}

const ticks = (html: string, axis: "x" | "y") =>
  [...html.matchAll(new RegExp(`<text class="${axis}-tick" x="([\\d.]+)"[^>]*>([^<]+)</text>`, "g"))]
    .map((m) => ({ at: Number(m[1]), label: m[2]! }));
const markers = (
  html: string,
) => [...html.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)" r="3.5" class="point"/g)];

Deno.test("a chart of one instant draws it in the middle with one x tick, its label once", async () => {
  const at = MONDAY + 75 * 60_000; // 01:15
  const html = await chart(
    [{ name: "Market", points: [{ x: at, y: 0.4 }] }, { name: "Consensus", points: [{ x: at, y: 0.6 }] }],
    hour,
    [0, 1],
  );
  assert.deepEqual(ticks(html, "x").map((t) => t.label), ["11-23 01:15"]);
  const [marker] = markers(html);
  assert.equal(Number(marker![1]), ticks(html, "x")[0]!.at);
  assert.equal(Number(marker![1]), (78 + 464) / 2);
});

Deno.test("sparse points each have their x tick, each date written once", async () => {
  const points = [0, 1, 3].map((d) => ({ x: MONDAY + d * DAY + 6 * HOUR, y: 0.2 }));
  const labels = ticks(await chart([{ name: "Miner", points }], day, [0, 0.45]), "x").map((t) => t.label);
  assert.deepEqual(labels, ["2026-11-23", "2026-11-24", "2026-11-26"]);
  // Two points on one day, written as days: one label.
  const sameDay = [{ x: MONDAY + HOUR, y: 0.1 }, { x: MONDAY + 5 * HOUR, y: 0.2 }];
  assert.deepEqual(ticks(await chart([{ name: "Miner", points: sameDay }], day), "x").map((t) => t.label), [
    "2026-11-23",
  ]);
});

Deno.test("dense points have ticks at whole days, none outside the data, their labels apart", async () => {
  const points = Array.from({ length: 7 * 24 }, (_, h) => ({ x: MONDAY + 13 * HOUR + h * HOUR, y: 0.5 }));
  const html = await chart([{ name: "Market", points }], hour, [0, 1]);
  const shown = ticks(html, "x");
  assert.deepEqual(shown.map((t) => t.label), ["11-25 00:00", "11-27 00:00", "11-29 00:00"]);
  const gaps = shown.slice(1).map((t, i) => t.at - shown[i]!.at);
  assert.ok(gaps.every((gap) => gap > 100), `labels about 100 units wide, ${gaps} apart`);
});

Deno.test("y ticks are nice values within the y range", async () => {
  const points = [{ x: MONDAY, y: 0.1 }, { x: MONDAY + 7 * DAY, y: 0.41 }];
  const html = await chart([{ name: "Miner", points }], day, [0, 0.45]);
  assert.deepEqual(ticks(html, "y").map((t) => t.label), ["0.000", "0.100", "0.200", "0.300", "0.400"]);
  assert.deepEqual(ticks(html, "x").map((t) => t.label), ["2026-11-23", "2026-11-30"]);
});
