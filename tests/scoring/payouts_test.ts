import assert from "node:assert/strict";
import { forecastingPayouts } from "../../actors/scoring/mod.ts";

const PAYOUT = { minerAlphaPerDay: 1000, forecastingWeightShare: 0.5, alphaUsd: 2 };

Deno.test("each miner is paid its share of the summed scores of the forecasting budget", () => {
  const payouts = forecastingPayouts(
    [{ uid: 3, score: 0.3 }, { uid: 1, score: 0.1 }, { uid: 2, score: 0 }],
    PAYOUT,
  );
  assert.equal(payouts.forecastingBudgetAlphaPerDay, 500);
  assert.deepEqual(Object.fromEntries(payouts.miners), {
    1: { forecastingIncentive: 0.25, forecastingAlphaPerDay: 125, forecastingUsdPerDay: 250 },
    2: { forecastingIncentive: 0, forecastingAlphaPerDay: 0, forecastingUsdPerDay: 0 },
    3: { forecastingIncentive: 0.75, forecastingAlphaPerDay: 375, forecastingUsdPerDay: 750 },
  });
});

Deno.test("alpha and USD are computed from the unrounded share, then rounded", () => {
  // share 1/3: alpha = 500/3 = 166.666667 (not 0.333333 × 500 = 166.6665);
  // USD = 1000/3 = 333.333333 (not 166.666667 × 2 = 333.333334).
  const payouts = forecastingPayouts([{ uid: 1, score: 0.1 }, { uid: 2, score: 0.2 }], PAYOUT);
  assert.deepEqual(payouts.miners.get(1), {
    forecastingIncentive: 0.333333,
    forecastingAlphaPerDay: 166.666667,
    forecastingUsdPerDay: 333.333333,
  });
  assert.equal(payouts.miners.get(2)?.forecastingIncentive, 0.666667);
});

Deno.test("nobody is paid when every score is 0", () => {
  const payouts = forecastingPayouts([{ uid: 1, score: 0 }, { uid: 2, score: 0 }], PAYOUT);
  assert.deepEqual([...payouts.miners.values()].map((m) => m.forecastingIncentive), [0, 0]);
  assert.equal(payouts.forecastingBudgetAlphaPerDay, 500);
});

Deno.test("the published budget is rounded: 2952 × 0.4 is 1180.8", () => {
  const payouts = forecastingPayouts([], {
    minerAlphaPerDay: 2952,
    forecastingWeightShare: 0.4,
    alphaUsd: 1,
  });
  assert.equal(payouts.forecastingBudgetAlphaPerDay, 1180.8);
});
