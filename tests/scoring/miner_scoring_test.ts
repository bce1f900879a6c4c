import { emptyScoring } from "../support/scoring_rows.ts";
import assert from "node:assert/strict";
import {
  calibrationOf,
  gateOf,
  scorePrediction,
  type ScorerInput,
  type ScorerPrediction,
  scoreV1,
} from "../../actors/scoring/mod.ts";
import {
  binaryEvent,
  binaryPrediction,
  daysAgo,
  HOTKEY_1,
  HOTKEY_2,
  type PredictionOptions,
  registration,
  scorerInput,
} from "./scorer_fixtures.ts";

/**
 * Five valid rows of HOTKEY_1 (uid 1) on events resolved 0, 7, 14, 21 and 28 days ago, so their
 * weights are 1, 1/2, 1/4, 1/8, 1/16 (Σw = 31/16, Σw² = 341/256):
 *
 * | event | p(yes) | pred | won | market yes | pWin | brier | marketBrier | q   | bet        |
 * | a     | 0.8    | yes  | yes | 0.6        | 0.8  | 0.04  | 0.16        | 0.8 | yes, wins  |
 * | b     | 0.7    | yes  | no  | 0.5        | 0.3  | 0.49  | 0.25        | 0.7 | yes, loses |
 * | c     | 0.9    | yes  | yes | 0.9        | 0.9  | 0.01  | 0.01        | 0.9 | none (gap 0) |
 * | d     | 0.4    | no   | no  | 0.5        | 0.6  | 0.16  | 0.25        | 0.6 | no, wins   |
 * | e     | 0.5    | yes  | no  | 0.5        | 0.5  | 0.25  | 0.25        | 0.5 | none (gap 0) |
 */
const ROWS: [string, number, [number, number], "yes" | "no", "yes" | "no", number][] = [
  ["a", 0, [0.8, 0.2], "yes", "yes", 0.6],
  ["b", 7, [0.7, 0.3], "yes", "no", 0.5],
  ["c", 14, [0.9, 0.1], "yes", "yes", 0.9],
  ["d", 21, [0.4, 0.6], "no", "no", 0.5],
  ["e", 28, [0.5, 0.5], "yes", "no", 0.5],
];

function fiveRows(extra: Partial<ScorerInput> = {}): ScorerInput {
  const events = ROWS.map(([id, age, , , winner]) => binaryEvent(id, { winner, resolvedAt: daysAgo(age) }));
  const predictions = ROWS.map(([id, age, probs, predicted, , market]) =>
    binaryPrediction(`p-${id}`, id, { probs, predicted, prices: [market, 1 - market], at: daysAgo(age + 1) })
  );
  return scorerInput({
    events: [...events, ...(extra.events ?? [])],
    predictions: [...predictions, ...(extra.predictions ?? [])],
    registrations: [registration(HOTKEY_1, 1, 36), ...(extra.registrations ?? [])],
    ...(extra.payout ? { payout: extra.payout } : {}),
  });
}

Deno.test("a miner's score-table row from five hand-worked rows", () => {
  // brier = 0.95 / 5 = 0.19; weightedBrier = Σw·brier / Σw = 0.323125 / 1.9375 = 0.166774…
  // edge = Σw·(marketBrier − brier) / Σw = (0.12 − 0.12 + 0 + 0.01125 + 0) / 1.9375 = 0.0058064…
  // accuracy = 3/5; calibration: one row per bin, ECE = (0.2 + 0.7 + 0.1 + 0.4 + 0.5) / 5 = 0.38
  // roi: 3 stakes, received 1/0.6 + 2 → (3.666… − 3) / 3 = 0.222222
  // effN = (31/16)² / (341/256) = 31/11 = 2.818182; rho = 31 / 141 = 0.219858
  // score = rho · edge = (31/141)·(0.18/31) = 0.18/141 = 0.001277; ageHours = 36
  assert.deepEqual(scoreV1(fiveRows()).miners[HOTKEY_1], {
    uid: 1,
    scoring: {
      score: 0.001277,
      raw: 0.005806,
      accuracy: 0.6,
      calibration: 0.62,
      edge: 0.005806,
      brier: 0.19,
      weightedBrier: 0.166774,
      roi: 0.222222,
      preds: 5,
      validPreds: 5,
      invalidPreds: 0,
      rho: 0.219858,
      effN: 2.818182,
      ageHours: 36,
      gate: "pass",
    },
    forecastingIncentive: 1,
    forecastingAlphaPerDay: 500,
    forecastingUsdPerDay: 1000,
  });
});

Deno.test("rows outside the window, on voided events, or of another registration do not count", () => {
  const outside = binaryEvent("old", { resolvedAt: daysAgo(30) });
  const future = binaryEvent("future", { resolvedAt: daysAgo(-0.001) });
  const voided = binaryEvent("void", { status: "voided" });
  const other = (id: string, eventId: string, options: PredictionOptions = {}): ScorerPrediction =>
    binaryPrediction(id, eventId, { probs: [1, 0], at: daysAgo(31), ...options });
  const input = fiveRows({
    events: [outside, future, voided],
    predictions: [
      other("x1", "old"),
      other("x2", "future"),
      other("x3", "void"),
      other("x4", "a", { uid: 2 }),
      other("x5", "a", { uid: null }),
    ],
  });
  assert.deepEqual(scoreV1(input).miners[HOTKEY_1], scoreV1(fiveRows()).miners[HOTKEY_1]);
});

Deno.test("a row weighs half as much for every 7 days since its event resolved", () => {
  // Only a (w = 1) and b (w = 1/2): weightedBrier = (0.04 + 0.245) / 1.5 = 0.19, effN = 2.25 / 1.25 = 1.8.
  const input = fiveRows();
  input.predictions = input.predictions.filter((p) => ["p-a", "p-b"].includes(p.agentPredictionId));
  const scoring = scoreV1(input).miners[HOTKEY_1]!.scoring;
  assert.equal(scoring.weightedBrier, 0.19);
  assert.equal(scoring.effN, 1.8);
  assert.equal(scoring.rho, 0.152542); // 1.8 / 11.8
  assert.equal(scoring.gate, "min_predictions");
  assert.equal(scoring.score, 0);
});

Deno.test("gates: no predictions, more than a quarter invalid, fewer than five valid, else pass", () => {
  assert.equal(gateOf(0, 0), "no_predictions");
  assert.equal(gateOf(4, 2), "invalid_rate");
  assert.equal(gateOf(4, 3), "min_predictions"); // exactly a quarter invalid passes that gate
  assert.equal(gateOf(6, 5), "pass");
  assert.equal(gateOf(7, 5), "invalid_rate"); // 2/7 > 0.25
});

Deno.test("one invalid row of six passes; two of seven stop the score", () => {
  const invalid = (id: string) => binaryPrediction(id, id, { invalid: true, at: daysAgo(2) });
  const one = scoreV1(fiveRows({ events: [binaryEvent("i1")], predictions: [invalid("i1")] }));
  assert.equal(one.miners[HOTKEY_1]?.scoring.gate, "pass");
  assert.equal(one.miners[HOTKEY_1]?.scoring.invalidPreds, 1);
  assert.equal(one.miners[HOTKEY_1]?.scoring.score, 0.001277, "invalid rows change neither edge nor rho");
  const two = scoreV1(
    fiveRows({ events: [binaryEvent("i1"), binaryEvent("i2")], predictions: [invalid("i1"), invalid("i2")] }),
  );
  assert.equal(two.miners[HOTKEY_1]?.scoring.gate, "invalid_rate");
  assert.equal(two.miners[HOTKEY_1]?.scoring.score, 0);
  assert.equal(two.miners[HOTKEY_1]?.scoring.raw, 0.005806, "raw is still the edge");
});

Deno.test("a registered miner with no predictions has a zero row and its age", () => {
  const output = scoreV1(fiveRows({ registrations: [registration(HOTKEY_2, 2, 1.5)] }));
  assert.deepEqual(output.miners[HOTKEY_2], {
    uid: 2,
    scoring: emptyScoring(1.5),
    forecastingIncentive: 0,
    forecastingAlphaPerDay: 0,
    forecastingUsdPerDay: 0,
  });
});

Deno.test("a miner whose rows are all invalid has zeros for every valid-row value", () => {
  const input = fiveRows();
  input.predictions = input.predictions.map((p) => ({ ...p, predictionIsInvalid: true }));
  const scoring = scoreV1(input).miners[HOTKEY_1]!.scoring;
  assert.deepEqual(
    [scoring.brier, scoring.weightedBrier, scoring.accuracy, scoring.calibration, scoring.edge, scoring.effN],
    [0, 0, 0, 0, 0, 0],
  );
  assert.deepEqual([scoring.preds, scoring.validPreds, scoring.invalidPreds, scoring.gate], [
    5,
    0,
    5,
    "invalid_rate",
  ]);
});

Deno.test("a negative edge gives a zero score, never a negative one", () => {
  // Always worse than the market: p(yes) 0.6 while the market said 0.9 and yes won.
  const input = fiveRows();
  input.predictions = input.predictions.map((p) => ({
    ...p,
    outcomeProbabilities: { [`${p.eventId}-yes`]: 0.6, [`${p.eventId}-no`]: 0.4 },
    predictedOutcomeId: `${p.eventId}-yes`,
    outcomePricesAtPrediction: { [`${p.eventId}-yes`]: 0.9, [`${p.eventId}-no`]: 0.1 },
  }));
  input.events = input.events.map((e) => ({
    ...e,
    resolution: { ...e.resolution, winningOutcomeId: `${e.id}-yes` },
  }));
  const scoring = scoreV1(input).miners[HOTKEY_1]!.scoring;
  assert.equal(scoring.edge, -0.15); // 0.01 − 0.16 on every row
  assert.equal(scoring.gate, "pass");
  assert.equal(scoring.score, 0);
  assert.equal(scoring.roi, -1); // bet "no" (0.4 − 0.1 = 0.3) every time, and lost
});

Deno.test("calibration bins q by tenths; q = 1 falls in the last bin", () => {
  // q = 0.95 (won) and 1 (lost) share bin 9: |0.975 − 0.5| = 0.475 → 0.525.
  const event = binaryEvent("e");
  const lost = binaryEvent("f", { winner: "no" });
  const rows = [
    scorePrediction(binaryPrediction("a", "e", { probs: [0.95, 0.05] }), event),
    scorePrediction(binaryPrediction("b", "f", { probs: [1, 0] }), lost),
  ];
  assert.equal(calibrationOf(rows), 0.525);
});

Deno.test("a registration first seen after computedAt is 0 hours old, never a negative age", () => {
  const input = scorerInput({
    registrations: [registration(HOTKEY_1, 1, -0.025), registration(HOTKEY_2, 2, 0)],
  });
  const { miners } = scoreV1(input);
  assert.equal(miners[HOTKEY_1]?.scoring.ageHours, 0);
  assert.ok(Object.is(miners[HOTKEY_1]?.scoring.ageHours, 0), "not -0 either");
  assert.equal(miners[HOTKEY_2]?.scoring.ageHours, 0);
});
