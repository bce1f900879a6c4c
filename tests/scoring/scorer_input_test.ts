import assert from "node:assert/strict";
import { parseScorerInput } from "../../actors/scoring/mod.ts";
import { binaryEvent, binaryPrediction, HOTKEY_1, registration, scorerInput } from "./scorer_fixtures.ts";

function problems(value: unknown): string {
  try {
    parseScorerInput(value);
  } catch (error) {
    assert.ok(error instanceof TypeError);
    return error.message;
  }
  assert.fail("expected the input to be refused");
}

Deno.test("a well-formed input parses; unknown extra fields (as the feed carries) are dropped", () => {
  const input = scorerInput({ events: [binaryEvent("e")], predictions: [binaryPrediction("p", "e")] });
  const withExtra = { ...input, predictions: [{ ...input.predictions[0], marketId: "m-1" }] };
  assert.deepEqual(parseScorerInput(withExtra), input);
});

Deno.test("the shape is checked field by field", () => {
  const message = problems({
    computedAt: "yesterday",
    windowDays: 0,
    events: [],
    predictions: {},
    payout: {},
  });
  assert.match(message, /^Invalid scorer input: /);
  for (
    const field of ["computedAt", "windowDays", "predictions", "registrations", "payout.minerAlphaPerDay"]
  ) {
    assert.match(message, new RegExp(`${field.replace(".", "\\.")}: `), field);
  }
});

Deno.test("cross-references are checked: known events, unique ids, a resolved event's winner", () => {
  const bad = binaryEvent("e");
  bad.resolution.winningOutcomeId = "elsewhere";
  const input = scorerInput({
    events: [bad, binaryEvent("e")],
    predictions: [binaryPrediction("p", "missing"), binaryPrediction("p", "e")],
    registrations: [registration(HOTKEY_1, 1), registration(HOTKEY_1, 1)],
  });
  const message = problems(input);
  assert.match(
    message,
    /events\.0\.resolution\.winningOutcomeId: a resolved event needs one of its outcome ids/,
  );
  assert.match(message, /events\.1: duplicate event id e/);
  assert.match(message, /predictions\.0\.eventId: unknown event missing/);
  assert.match(message, /predictions\.1: duplicate agentPredictionId p/);
  assert.match(message, /registrations\.1: duplicate hotkey/);
  assert.match(message, /registrations\.1: duplicate uid 1/);
});

Deno.test("admission prices must sum to more than 0 (they stand in for missing market prices)", () => {
  const input = scorerInput({ events: [binaryEvent("e", { admission: [0, 0] })] });
  assert.match(problems(input), /events\.0\.outcomePricesAtAdmission: prices must sum to more than 0/);
});

Deno.test("a probability or confidence that is not a number is kept (null) and judged invalid later", () => {
  const input = scorerInput({
    events: [binaryEvent("e")],
    predictions: [binaryPrediction("p", "e", { probs: [null, 0.5], confidence: null })],
  });
  assert.equal(parseScorerInput(input).predictions[0]?.confidence, null);
});
