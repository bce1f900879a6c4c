import assert from "node:assert/strict";
import { scorePrediction, validityReasons } from "../../actors/scoring/mod.ts";
import { binaryEvent, binaryPrediction, daysAgo } from "./scorer_fixtures.ts";

const event = binaryEvent("e", { endDate: daysAgo(1), resolvedAt: daysAgo(0.5) });

Deno.test("a well-formed prediction made before the event's end is valid", () => {
  assert.deepEqual(validityReasons(binaryPrediction("p", "e", { probs: [0.6, 0.4] }), event), []);
});

Deno.test("each validity rule names its own reason", () => {
  const cases: [Parameters<typeof binaryPrediction>[2], string][] = [
    [{ invalid: true }, "agent_reported_invalid"],
    [{ probs: [0.6, null] }, "probability_out_of_range"],
    [{ probs: [0.5, 0.52] }, "probabilities_do_not_sum_to_one"],
    [{ predicted: "maybe" }, "unknown_predicted_outcome"],
    [{ confidence: 1.5 }, "confidence_out_of_range"],
    [{ confidence: null }, "confidence_out_of_range"],
    [{ confidence: -0.1 }, "confidence_out_of_range"],
    [{ at: daysAgo(0.9) }, "late_prediction"],
  ];
  for (const [options, reason] of cases) {
    assert.deepEqual(validityReasons(binaryPrediction("p", "e", options), event), [reason], reason);
  }
});

Deno.test("a sum within 0.01 of 1 is accepted, and probabilities 0 and 1 are in range", () => {
  assert.deepEqual(validityReasons(binaryPrediction("p", "e", { probs: [0.5, 0.505] }), event), []);
  assert.deepEqual(validityReasons(binaryPrediction("p", "e", { probs: [1, 0] }), event), []);
});

Deno.test("outcome keys must be exactly the event's outcome ids; the sum is still checked", () => {
  const missing = binaryPrediction("p", "e", { probs: [0.6, 0.4] });
  missing.outcomeProbabilities = { "e-yes": 0.6 };
  assert.deepEqual(validityReasons(missing, event), ["outcome_mismatch", "probabilities_do_not_sum_to_one"]);
  const extra = binaryPrediction("p", "e", { probs: [0.6, 0.4] });
  extra.outcomeProbabilities = { "e-yes": 0.6, "e-no": 0.4, "e-other": 0 };
  assert.deepEqual(validityReasons(extra, event), ["outcome_mismatch"]);
});

Deno.test("the sum rule is not applied when a probability is out of range", () => {
  // 1.0255 + 0.0245 = 1.05 would fail the sum, but an out-of-range value is the only reason given.
  assert.deepEqual(validityReasons(binaryPrediction("p", "e", { probs: [1.0255, 0.0245] }), event), [
    "probability_out_of_range",
  ]);
});

Deno.test("every failed rule is listed, in the fixed order", () => {
  const prediction = binaryPrediction("p", "e", {
    invalid: true,
    probs: [0.9, 0.3],
    predicted: "maybe",
    confidence: 2,
    at: daysAgo(0.75),
  });
  assert.deepEqual(validityReasons(prediction, event), [
    "agent_reported_invalid",
    "probabilities_do_not_sum_to_one",
    "unknown_predicted_outcome",
    "confidence_out_of_range",
    "late_prediction",
  ]);
});

Deno.test("a prediction after an early resolution is late though the end date is still ahead", () => {
  const early = binaryEvent("e", { endDate: daysAgo(-2), resolvedAt: daysAgo(1) });
  assert.deepEqual(validityReasons(binaryPrediction("p", "e", { at: daysAgo(0.5) }), early), [
    "late_prediction",
  ]);
  assert.deepEqual(validityReasons(binaryPrediction("p", "e", { at: daysAgo(1) }), early), []);
});

Deno.test("a prediction on an open event is late only after its end date", () => {
  const open = binaryEvent("e", { status: "unresolved", endDate: daysAgo(1) });
  assert.deepEqual(validityReasons(binaryPrediction("p", "e", { at: daysAgo(1) }), open), []);
  assert.deepEqual(validityReasons(binaryPrediction("p", "e", { at: daysAgo(0.9) }), open), [
    "late_prediction",
  ]);
});

Deno.test("an invalid prediction is kept with its reasons and null scored values", () => {
  const { result } = scorePrediction(binaryPrediction("p", "e", { confidence: 3 }), event);
  assert.deepEqual(result, {
    isValid: false,
    reasons: ["confidence_out_of_range"],
    pWin: null,
    brier: null,
    called: null,
    marketBrier: null,
  });
});
