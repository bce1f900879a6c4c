import assert from "node:assert/strict";
import {
  baselineEventOf,
  BaselineFold,
  consensusPrediction,
  marketPrediction,
} from "../../actors/scoring/mod.ts";
import type { ScoredEventRecord } from "../../storage/score_store.ts";

const DAY = 86_400_000;
const RESOLVED = Date.UTC(2026, 10, 20);

function record(id: string, admission: Record<string, number>, resolvedAtMs = RESOLVED): ScoredEventRecord {
  return {
    eventId: id,
    source: "polymarket",
    sourceMarketId: id,
    question: `${id}?`,
    outcomes: [{ outcomeId: "yes", name: "Yes" }, { outcomeId: "no", name: "No" }],
    endDate: new Date(resolvedAtMs + DAY).toISOString(),
    outcomePricesAtAdmission: admission,
    resolvedAtMs,
    winningOutcomeId: "yes",
    scoredAtMs: resolvedAtMs,
    marketPWinAtAdmission: 0,
    stats: { scored: 0, valid: 0, meanBrier: null, calledRate: null, bestUid: null },
  };
}

Deno.test("the market baseline predicts the admission prices divided by their sum, in time, naming the likeliest", () => {
  // 0.55 + 0.505 = 1.055: a miner's probabilities summing to that would be invalid; the market's are normalised.
  const event = baselineEventOf(record("e1", { yes: 0.55, no: 0.505 }));
  const prediction = marketPrediction(event)!;
  assert.equal(prediction.predictedOutcomeId, "yes");
  assert.ok(Math.abs(prediction.outcomeProbabilities.yes! - 0.55 / 1.055) < 1e-12);
  assert.equal(prediction.predictedAt, new Date(RESOLVED).toISOString()); // resolved before its end
  const fold = new BaselineFold("market", RESOLVED + DAY);
  fold.add(event, prediction);
  const row = fold.result();
  assert.deepEqual([row.events, row.preds, row.validPreds, row.accuracy], [1, 1, 1, 1]);
  assert.equal(row.brier, Math.round((1 - Math.round((0.55 / 1.055) * 1e6) / 1e6) ** 2 * 1e6) / 1e6);
});

Deno.test("the consensus baseline skips events without a forecast and counts a malformed one as invalid", () => {
  const events = ["e1", "e2", "e3"].map((id, i) =>
    baselineEventOf(record(id, { yes: 0.5, no: 0.5 }, RESOLVED + i))
  );
  const point = (eventId: string, forecast: Record<string, number> | null) => ({
    eventId,
    atMs: RESOLVED - 3_600_000,
    forecast,
    contributors: 1,
    market: { yes: 0.5, no: 0.5 },
  });
  const fold = new BaselineFold("consensus", RESOLVED + DAY);
  fold.add(events[0]!, consensusPrediction(events[0]!, point("e1", null)));
  fold.add(events[1]!, consensusPrediction(events[1]!, point("e2", { yes: 0.9, maybe: 0.1 })));
  fold.add(events[2]!, consensusPrediction(events[2]!, null));
  const row = fold.result();
  assert.deepEqual([row.events, row.preds, row.validPreds, row.invalidPreds], [3, 1, 0, 1]);
  // No valid prediction: no figure (the scorer's fold gives 0, which would read as a perfect Brier).
  assert.deepEqual([row.brier, row.brierInterval, row.weightedBrier, row.accuracy, row.calibration], [
    null,
    null,
    null,
    null,
    null,
  ]);
});
