import assert from "node:assert/strict";
import { compareLatest, latestOf, scoreV1 } from "../../actors/scoring/mod.ts";
import {
  binaryEvent,
  binaryPrediction,
  daysAgo,
  HOTKEY_1,
  registration,
  scorerInput,
} from "./scorer_fixtures.ts";

Deno.test("the latest prediction is the one with the greatest predictedAt, then agentPredictionId", () => {
  const a = { predictedAtMs: 1000, agentPredictionId: "ap-2" };
  const b = { predictedAtMs: 2000, agentPredictionId: "ap-1" };
  const c = { predictedAtMs: 2000, agentPredictionId: "ap-10" };
  assert.equal(latestOf([c, a, b]), c);
  assert.ok(compareLatest(a, b) < 0 && compareLatest(c, b) > 0 && compareLatest(b, b) === 0);
  assert.equal(latestOf([]), undefined);
});

Deno.test("only a miner's latest prediction on an event counts, even when it is invalid", () => {
  // The earlier valid prediction "a" is superseded by the later invalid "b".
  const input = scorerInput({
    events: [binaryEvent("e")],
    predictions: [
      binaryPrediction("a", "e", { probs: [0.9, 0.1], at: daysAgo(3) }),
      binaryPrediction("b", "e", { confidence: 5, at: daysAgo(2) }),
    ],
    registrations: [registration(HOTKEY_1, 1)],
  });
  const output = scoreV1(input);
  assert.deepEqual(output.events.e?.stats, {
    scored: 1,
    valid: 0,
    meanBrier: null,
    calledRate: null,
    bestUid: null,
  });
  assert.equal(output.predictions.a?.brier, 0.01, "a superseded prediction still has its own scored values");
  assert.equal(output.miners[HOTKEY_1]?.scoring.preds, 1);
  assert.equal(output.miners[HOTKEY_1]?.scoring.invalidPreds, 1);
});

Deno.test("at the same instant the greater agentPredictionId counts", () => {
  const at = daysAgo(2);
  const input = scorerInput({
    events: [binaryEvent("e")],
    predictions: [
      binaryPrediction("ap-b", "e", { probs: [0.6, 0.4], at }),
      binaryPrediction("ap-a", "e", { probs: [0.9, 0.1], at }),
    ],
  });
  assert.equal(scoreV1(input).events.e?.stats.meanBrier, 0.16);
});

Deno.test("a hotkey's predictions under another uid are another miner's rows", () => {
  const input = scorerInput({
    events: [binaryEvent("e")],
    predictions: [
      binaryPrediction("old", "e", { uid: 3, probs: [0.9, 0.1], at: daysAgo(3) }),
      binaryPrediction("new", "e", { uid: 8, probs: [0.6, 0.4], at: daysAgo(4) }),
    ],
    registrations: [registration(HOTKEY_1, 8)],
  });
  const output = scoreV1(input);
  assert.deepEqual(output.events.e?.minerOrder, [3, 8]);
  assert.equal(output.miners[HOTKEY_1]?.scoring.preds, 1);
  assert.equal(output.miners[HOTKEY_1]?.scoring.brier, 0.16);
});
