import assert from "node:assert/strict";
import { compareCodePoints, exactMeanR6, normalise, r6 } from "../../actors/scoring/mod.ts";

Deno.test("r6 rounds to six decimals and never gives −0", () => {
  assert.equal(r6(0.1234565), 0.123457);
  assert.equal(r6(2 / 3), 0.666667);
  assert.ok(Object.is(r6(-0.0000001), 0));
});

Deno.test("the mean of rounded values is the same in any order", () => {
  const values = [0.1, 0.2, 0.3, 0.000001, 0.999999, 0.123457];
  const forward = exactMeanR6(values);
  assert.equal(exactMeanR6([...values].reverse()), forward);
  assert.equal(forward, 0.287243); // 1723457 micro / 6 = 287242.83 → 0.287243
  assert.equal(exactMeanR6([0.1, 0.2]), 0.15);
});

Deno.test("code-point order puts astral characters after the rest of the BMP", () => {
  // UTF-16 code units would put "\u{1F600}" (0xD83D…) before "\uFF01".
  assert.ok(compareCodePoints("\u{1F600}", "\uFF01") > 0);
  assert.ok(compareCodePoints("ap-1", "ap-10") < 0);
  assert.equal(compareCodePoints("same", "same"), 0);
});

Deno.test("normalise divides by the sum and reports no total as null", () => {
  assert.deepEqual(normalise({ a: 1, b: 3 }, ["a", "b"]), new Map([["a", 0.25], ["b", 0.75]]));
  assert.deepEqual(normalise({ a: 2 }, ["a", "b"]), new Map([["a", 1], ["b", 0]]));
  assert.equal(normalise({ a: 0, b: 0 }, ["a", "b"]), null);
});
