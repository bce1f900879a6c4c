/**
 * `tests/scoring/golden/scoring-v1.json` (a byte-exact copy of scorer v1's shared golden file): the scorer
 * computes its `expected` from its `input` by the formulas. The expected values are read here only
 * to compare with what the scorer computed.
 */
import assert from "node:assert/strict";
import { parseScorerInput, SCORER_VERSION, type ScorerInput, scoreV1 } from "../../actors/scoring/mod.ts";
import { shuffled } from "./scorer_fixtures.ts";

const GOLDEN_PATH = new URL("./golden/scoring-v1.json", import.meta.url);
const golden = JSON.parse(await Deno.readTextFile(GOLDEN_PATH)) as {
  scorerVersion: string;
  input: unknown;
  expected: unknown;
};

/** Every leaf of `expected` compared with the same path of `actual`; returns the counts by type. */
function compareLeaves(actual: unknown, expected: unknown, path: string, counts: Map<string, number>): void {
  if (expected !== null && typeof expected === "object") {
    assert.ok(actual !== null && typeof actual === "object", `${path} should be an object or array`);
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `keys of ${path}`);
    for (const [key, value] of Object.entries(expected)) {
      compareLeaves((actual as Record<string, unknown>)[key], value, `${path}.${key}`, counts);
    }
    return;
  }
  assert.ok(Object.is(actual, expected), `${path}: computed ${actual}, golden ${expected}`);
  const type = expected === null ? "null" : typeof expected;
  counts.set(type, (counts.get(type) ?? 0) + 1);
}

Deno.test("the golden file is scorer v1's", () => {
  assert.equal(golden.scorerVersion, SCORER_VERSION);
});

Deno.test("scorer v1 reproduces every value of golden/scoring-v1.json from its input", () => {
  const output = scoreV1(parseScorerInput(golden.input));
  const counts = new Map<string, number>();
  compareLeaves(output, golden.expected, "expected", counts);
  // 1421 numbers (747 per-prediction, 246 event stats and market probabilities, 247 uids of the
  // event row orders, 180 per-miner, the budget), 602 booleans, 75 strings, 416 nulls.
  assert.deepEqual(Object.fromEntries(counts), { number: 1421, boolean: 602, string: 75, null: 416 });
});

Deno.test("scorer v1 gives byte-identical output whatever order the input's rows and keys come in", () => {
  const input = parseScorerInput(golden.input);
  const reference = JSON.stringify(scoreV1(input));
  for (const seed of [1, 2, 3, 4, 5]) {
    const reordered: ScorerInput = {
      ...input,
      events: shuffled(input.events, seed).map((event) => ({
        ...event,
        outcomePricesAtAdmission: reversedKeys(event.outcomePricesAtAdmission),
      })),
      predictions: shuffled(input.predictions, seed + 100).map((prediction) => ({
        ...prediction,
        outcomeProbabilities: reversedKeys(prediction.outcomeProbabilities),
        outcomePricesAtPrediction: prediction.outcomePricesAtPrediction === null
          ? null
          : reversedKeys(prediction.outcomePricesAtPrediction),
      })),
      registrations: shuffled(input.registrations, seed + 200),
    };
    assert.equal(JSON.stringify(scoreV1(reordered)), reference, `seed ${seed}`);
  }
});

function reversedKeys<V>(record: Record<string, V>): Record<string, V> {
  return Object.fromEntries(Object.entries(record).reverse());
}
