import assert from "node:assert/strict";
import { marketPWinOf, minerEventItems } from "../../actors/scoring/mod.ts";
import type { ScoringPrediction } from "../../storage/assignment_record.ts";
import { eventAt, rowOf, T0 } from "../support/scored_rows.ts";

/** A prediction of `id` on event "e1" with the lease's prices `prices`. */
function prediction(id: string, prices: Record<string, number>): ScoringPrediction {
  return {
    agentPredictionId: id,
    eventId: "e1",
    minerHotkey: "hk-a",
    minerUid: 7,
    predictedAtMs: T0 - 1,
    predictedOutcomeId: "yes",
    confidence: 0.8,
    outcomeProbabilities: { yes: 0.8, no: 0.2 },
    outcomePricesAtPrediction: prices,
    predictionIsInvalid: false,
  };
}

// "yes" won; admission prices 0.6 / 0.4.
const EVENT = eventAt("e1", T0);

Deno.test("the market's probability of the winner at prediction is m′: the lease's prices over their sum, else the admission prices", () => {
  // 0.3 / (0.3 + 0.5); its market Brier would be r6((1 − 0.375)²) = 0.390625.
  assert.equal(marketPWinOf(prediction("ap-1", { yes: 0.3, no: 0.5 }), EVENT), 0.375);
  assert.equal(marketPWinOf(prediction("ap-1", { yes: 0, no: 0 }), EVENT), 0.6);
  assert.equal(marketPWinOf(prediction("ap-1", { yes: 1 / 3, no: 2 / 3 }), EVENT), 0.333333);
});

Deno.test("listed events: each row with its event's question and winner, the stored values, and the market price; rows without an event record left out", () => {
  const valid = rowOf(EVENT, "ap-1", { hotkey: "hk-a", uid: 7 });
  const invalid = {
    ...rowOf(EVENT, "ap-2", { hotkey: "hk-a", uid: 8 }),
    reasons: ["late_prediction"],
    pWin: null,
    brier: null,
    called: null,
    marketBrier: null,
    pPredicted: null,
  };
  const orphan = rowOf(eventAt("e2", T0), "ap-3", { hotkey: "hk-a", uid: 7 });
  const items = minerEventItems([valid, invalid, orphan], {
    events: [EVENT],
    predictions: [prediction("ap-1", { yes: 0.4, no: 0.6 })],
  });
  assert.deepEqual(items, [
    {
      eventId: "e1",
      question: "Will e1 happen?",
      resolvedAtMs: T0,
      uid: 7,
      predictedAtMs: valid.predictedAtMs,
      outcome: { outcomeId: "yes", name: "Yes" },
      invalid: false,
      pWin: 0.8,
      pPredicted: 0.8,
      called: true,
      brier: 0.04,
      marketBrier: 0.16,
      marketPWin: 0.4,
    },
    {
      eventId: "e1",
      question: "Will e1 happen?",
      resolvedAtMs: T0,
      uid: 8,
      predictedAtMs: invalid.predictedAtMs,
      outcome: { outcomeId: "yes", name: "Yes" },
      invalid: true,
      pWin: null,
      pPredicted: null,
      called: null,
      brier: null,
      marketBrier: null,
      marketPWin: null,
    },
  ]);
});
