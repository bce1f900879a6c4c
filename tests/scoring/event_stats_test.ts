import assert from "node:assert/strict";
import { scoreV1 } from "../../actors/scoring/mod.ts";
import {
  binaryEvent,
  binaryPrediction,
  daysAgo,
  HOTKEY_1,
  HOTKEY_2,
  HOTKEY_3,
  scorerInput,
} from "./scorer_fixtures.ts";

Deno.test("event stats count every counted row with a uid; Brier and called rate come from valid rows", () => {
  // uid 1: p(yes) 0.8 → brier 0.04, called; uid 2: p(yes) 0.3 → pWin 0.3, brier 0.49, not called;
  // uid 3: invalid; a prediction without a uid is left out.
  // meanBrier = (40000 + 490000) micro / 2 = 0.265; calledRate = 1/2.
  const input = scorerInput({
    events: [binaryEvent("e", { admission: [0.3, 0.1] })],
    predictions: [
      binaryPrediction("a", "e", { hotkey: HOTKEY_1, uid: 1, probs: [0.8, 0.2] }),
      binaryPrediction("b", "e", { hotkey: HOTKEY_2, uid: 2, probs: [0.3, 0.7], predicted: "no" }),
      binaryPrediction("c", "e", { hotkey: HOTKEY_3, uid: 3, invalid: true }),
      binaryPrediction("d", "e", { hotkey: "5Fnouid", uid: null, probs: [1, 0] }),
    ],
  });
  assert.deepEqual(scoreV1(input).events.e, {
    stats: { scored: 3, valid: 2, meanBrier: 0.265, calledRate: 0.5, bestUid: 1 },
    marketPWinAtAdmission: 0.75,
    minerOrder: [1, 2, 3],
  });
});

Deno.test("the mean Brier of an event is exact in micro-units", () => {
  // 0.1² = 0.01, 0.25² = 0.0625, 0.333333… → pWin 0.666667, (0.333333)² = 0.111111:
  // (10000 + 62500 + 111111) / 3 = 61203.67 → 0.061204.
  const input = scorerInput({
    events: [binaryEvent("e")],
    predictions: [
      binaryPrediction("a", "e", { uid: 1, hotkey: HOTKEY_1, probs: [0.9, 0.1] }),
      binaryPrediction("b", "e", { uid: 2, hotkey: HOTKEY_2, probs: [0.75, 0.25] }),
      binaryPrediction("c", "e", { uid: 3, hotkey: HOTKEY_3, probs: [2 / 3, 1 / 3] }),
    ],
  });
  assert.equal(scoreV1(input).events.e?.stats.meanBrier, 0.061204);
});

Deno.test("best uid ties go to the earliest prediction, row order ties to the lower uid", () => {
  const input = scorerInput({
    events: [binaryEvent("e")],
    predictions: [
      binaryPrediction("a", "e", { hotkey: HOTKEY_1, uid: 7, probs: [0.8, 0.2], at: daysAgo(3) }),
      binaryPrediction("b", "e", { hotkey: HOTKEY_2, uid: 4, probs: [0.8, 0.2], at: daysAgo(2) }),
      binaryPrediction("c", "e", { hotkey: HOTKEY_3, uid: 2, confidence: 9 }),
    ],
  });
  const result = scoreV1(input).events.e!;
  assert.equal(result.stats.bestUid, 7);
  assert.deepEqual(result.minerOrder, [4, 7, 2]);
});

Deno.test("equal Brier and equal time: the lower uid is best", () => {
  const input = scorerInput({
    events: [binaryEvent("e")],
    predictions: [
      binaryPrediction("a", "e", { hotkey: HOTKEY_1, uid: 9, probs: [0.6, 0.4] }),
      binaryPrediction("b", "e", { hotkey: HOTKEY_2, uid: 5, probs: [0.6, 0.4] }),
    ],
  });
  assert.equal(scoreV1(input).events.e?.stats.bestUid, 5);
});

Deno.test("an event with no valid rows has null Brier, called rate and best uid", () => {
  const input = scorerInput({
    events: [binaryEvent("e"), binaryEvent("quiet")],
    predictions: [binaryPrediction("a", "e", { invalid: true })],
  });
  const events = scoreV1(input).events;
  assert.deepEqual(events.e?.stats, {
    scored: 1,
    valid: 0,
    meanBrier: null,
    calledRate: null,
    bestUid: null,
  });
  assert.deepEqual(events.quiet?.stats, {
    scored: 0,
    valid: 0,
    meanBrier: null,
    calledRate: null,
    bestUid: null,
  });
  assert.deepEqual(events.quiet?.minerOrder, []);
});

Deno.test("only resolved events have stats: voided and unresolved ones are not scored", () => {
  const input = scorerInput({
    events: [
      binaryEvent("r"),
      binaryEvent("v", { status: "voided" }),
      binaryEvent("u", { status: "unresolved" }),
    ],
    predictions: [binaryPrediction("a", "v"), binaryPrediction("b", "u")],
  });
  assert.deepEqual(Object.keys(scoreV1(input).events), ["r"]);
});
