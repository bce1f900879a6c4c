import assert from "node:assert/strict";
import { convertWeightsAndUidsForEmit, roundHalfEven } from "../../actors/scoring/mod.ts";

Deno.test("weights are scaled so the largest is 65535", () => {
  // 0.25 / 1 × 65535 = 16383.75 → 16384; 0.5 → 32767.5 → 32768 (the even neighbour).
  assert.deepEqual(convertWeightsAndUidsForEmit([4, 9, 12], [0.25, 1, 0.5]), {
    uids: [4, 9, 12],
    weights: [16384, 65535, 32768],
  });
  // 1/3 of the largest: 65535 / 3 = 21845 exactly.
  assert.deepEqual(convertWeightsAndUidsForEmit([0, 1], [0.1, 0.3]), {
    uids: [0, 1],
    weights: [21845, 65535],
  });
});

Deno.test("halves round to even as Python's round does, and uids whose weight rounds to 0 are left out", () => {
  // Largest 131070: 5 → 2.5 → 2, 7 → 3.5 → 4, 1 → 0.5 → 0 (left out), 0 → left out.
  assert.deepEqual(convertWeightsAndUidsForEmit([1, 2, 3, 4, 5], [5, 7, 1, 131070, 0]), {
    uids: [1, 2, 4],
    weights: [2, 4, 65535],
  });
  assert.deepEqual([0.5, 1.5, 2.5, 2.4999, 2.5001].map(roundHalfEven), [0, 2, 2, 2, 3]);
});

Deno.test("all-zero or no weights set nothing", () => {
  assert.deepEqual(convertWeightsAndUidsForEmit([1, 2], [0, 0]), { uids: [], weights: [] });
  assert.deepEqual(convertWeightsAndUidsForEmit([], []), { uids: [], weights: [] });
});

Deno.test("negative weights, negative uids and mismatched lengths are refused", () => {
  assert.throws(() => convertWeightsAndUidsForEmit([1], [-0.1]), RangeError);
  assert.throws(() => convertWeightsAndUidsForEmit([-1], [0.1]), RangeError);
  assert.throws(() => convertWeightsAndUidsForEmit([1, 2], [0.1]), RangeError);
  assert.throws(() => convertWeightsAndUidsForEmit([1], [NaN]), RangeError);
});
