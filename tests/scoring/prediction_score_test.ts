import assert from "node:assert/strict";
import { scorePrediction } from "../../actors/scoring/mod.ts";
import { binaryEvent, binaryPrediction } from "./scorer_fixtures.ts";

Deno.test("a valid prediction is scored on its normalised winning-outcome probability", () => {
  // p = (0.505, 0.5) sums to 1.005; p'(no) = 0.5 / 1.005 = 0.497512…, pWin = 0.497512,
  // brier = (1 - 0.497512)² = 0.252494…; the market (0.3, 0.7) gives (1 - 0.7)² = 0.09.
  const event = binaryEvent("e", { winner: "no" });
  const { result } = scorePrediction(
    binaryPrediction("p", "e", { probs: [0.505, 0.5], predicted: "yes", prices: [0.3, 0.7] }),
    event,
  );
  assert.deepEqual(result, {
    isValid: true,
    reasons: [],
    pWin: 0.497512,
    brier: 0.252494,
    called: false,
    marketBrier: 0.09,
  });
});

Deno.test("the market at prediction is normalised by its sum", () => {
  // m' = (0.6, 0.6) / 1.2 = 0.5 each: (1 - 0.5)² = 0.25.
  const { result } = scorePrediction(
    binaryPrediction("p", "e", { probs: [0.8, 0.2], prices: [0.6, 0.6] }),
    binaryEvent("e"),
  );
  assert.equal(result.marketBrier, 0.25);
  assert.equal(result.pWin, 0.8);
  assert.equal(result.brier, 0.04);
  assert.equal(result.called, true);
});

Deno.test("without market prices at prediction, or with prices summing to 0, admission prices are used", () => {
  // Admission (0.2, 0.6) normalised: p(yes) = 0.25, (1 - 0.25)² = 0.5625.
  const event = binaryEvent("e", { admission: [0.2, 0.6] });
  for (const prices of [null, [0, 0] as [number, number]]) {
    const { result } = scorePrediction(binaryPrediction("p", "e", { prices }), event);
    assert.equal(result.marketBrier, 0.5625, JSON.stringify(prices));
  }
});

Deno.test("valid predictions on voided and unresolved events are not scored", () => {
  for (const status of ["voided", "unresolved"] as const) {
    const { result } = scorePrediction(binaryPrediction("p", "e"), binaryEvent("e", { status }));
    assert.deepEqual(result, {
      isValid: true,
      reasons: [],
      pWin: null,
      brier: null,
      called: null,
      marketBrier: null,
    });
  }
});
