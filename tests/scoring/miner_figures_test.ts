import assert from "node:assert/strict";
import {
  type FigureRow,
  minerIntervals,
  reliabilityBins,
  weeklyBrier,
  weekStartOf,
} from "../../actors/scoring/mod.ts";

const at = (iso: string) => Date.parse(iso);

/** One valid row: the forecast of the predicted outcome, whether it won, its Brier and the market's. */
function row(
  iso: string,
  pPredicted: number,
  called: boolean,
  brier: number,
  marketBrier: number,
): FigureRow {
  return { resolvedAtMs: at(iso), pPredicted, called, brier, marketBrier };
}

/**
 * Six valid rows over three weeks (Mondays 2026-11-16, 11-23 and 12-07; none the week of 11-30)
 * and one invalid row, which no figure counts.
 */
const ROWS: FigureRow[] = [
  row("2026-11-16T10:00:00.000Z", 0.95, true, 0.0025, 0.09),
  row("2026-11-22T23:59:59.999Z", 0.62, false, 0.3844, 0.25),
  row("2026-11-23T00:00:00.000Z", 0.65, true, 0.1225, 0.16),
  row("2026-11-24T08:00:00.000Z", 1, true, 0, 0.04),
  row("2026-11-26T08:00:00.000Z", 0.55, true, 0.2025, 0.25),
  {
    resolvedAtMs: at("2026-11-25T08:00:00.000Z"),
    pPredicted: null,
    called: null,
    brier: null,
    marketBrier: null,
  },
  row("2026-12-07T12:00:00.000Z", 0.7, false, 0.49, 0.36),
];

Deno.test("a week starts on Monday 00:00 UTC", () => {
  assert.equal(weekStartOf(at("2026-11-16T00:00:00.000Z")), at("2026-11-16T00:00:00.000Z"));
  assert.equal(weekStartOf(at("2026-11-22T23:59:59.999Z")), at("2026-11-16T00:00:00.000Z"));
  assert.equal(weekStartOf(at("2026-11-23T00:00:00.000Z")), at("2026-11-23T00:00:00.000Z"));
  assert.equal(weekStartOf(0), at("1969-12-29T00:00:00.000Z"));
});

Deno.test("reliability bins: forecasts of the predicted outcome in tenths (1 in the last), count, mean forecast, observed frequency", () => {
  const bins = reliabilityBins(ROWS);
  assert.equal(bins.length, 10);
  const filled = bins.filter((bin) => bin.count > 0);
  assert.deepEqual(filled, [
    { bin: 5, count: 1, meanForecast: 0.55, observedFrequency: 1 },
    // 0.62 missed, 0.65 won.
    { bin: 6, count: 2, meanForecast: 0.635, observedFrequency: 0.5 },
    { bin: 7, count: 1, meanForecast: 0.7, observedFrequency: 0 },
    // 0.95 and 1 both won.
    { bin: 9, count: 2, meanForecast: 0.975, observedFrequency: 1 },
  ]);
  assert.deepEqual(bins[0], { bin: 0, count: 0, meanForecast: null, observedFrequency: null });
  assert.deepEqual(reliabilityBins([]).map((bin) => bin.count), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
});

Deno.test("Brier over time: the weekly exact mean by resolvedAt beside the market's on the same rows, weeks without rows left out", () => {
  assert.deepEqual(weeklyBrier(ROWS), [
    // (0.0025 + 0.3844) / 2 and (0.09 + 0.25) / 2
    { weekStartMs: at("2026-11-16T00:00:00.000Z"), count: 2, meanBrier: 0.19345, marketMeanBrier: 0.17 },
    // (0.1225 + 0 + 0.2025) / 3 = 0.1083333… and (0.16 + 0.04 + 0.25) / 3; the invalid row is not counted
    { weekStartMs: at("2026-11-23T00:00:00.000Z"), count: 3, meanBrier: 0.108333, marketMeanBrier: 0.15 },
    { weekStartMs: at("2026-12-07T00:00:00.000Z"), count: 1, meanBrier: 0.49, marketMeanBrier: 0.36 },
  ]);
  assert.deepEqual(weeklyBrier([]), []);
});

Deno.test("the intervals of the mean Brier and mean edge are over the valid rows, r6-rounded, from five rows on", () => {
  // Briers 0.0025, 0.3844, 0.1225, 0, 0.2025, 0.49: mean 0.200317, sample sd 0.201555,
  // half-width 1.96 × sd / √6 = 0.161277. Edges (market − miner) 0.0875, −0.1344, 0.0375, 0.04,
  // 0.0475, −0.13: mean −0.00865, sample sd 0.097399, half-width 0.077936.
  assert.deepEqual(minerIntervals(ROWS), {
    validRows: 6,
    meanBrier: { mean: 0.200317, low: 0.039039, high: 0.361594, n: 6 },
    meanEdge: { mean: -0.00865, low: -0.086586, high: 0.069286, n: 6 },
  });
  assert.deepEqual(minerIntervals(ROWS.slice(0, 4)), { validRows: 4, meanBrier: null, meanEdge: null });
});
