import assert from "node:assert/strict";
import {
  distinctLabels,
  linearScale,
  niceStep,
  niceTicks,
  timeTicks,
} from "../../routes/pages/charts/scale.ts";

const HOUR = 3_600_000, DAY = 24 * HOUR;
/** Monday 2026-11-23, 00:00 UTC. */
const MONDAY = Date.UTC(2026, 10, 23);

Deno.test("a nice step is 1, 2, 2.5 or 5 × 10^k, the smallest that cuts the span into the intervals asked", () => {
  assert.deepEqual(
    [niceStep(1, 5), niceStep(0.45, 4), niceStep(0.45, 5), niceStep(1, 4), niceStep(3, 4), niceStep(70, 5)],
    [0.2, 0.2, 0.1, 0.25, 1, 20],
  );
});

Deno.test("value ticks are the nice multiples inside the domain, never a third-of-a-step value", () => {
  // [0, 0.45] in quarters was 0, 0.113, 0.225, 0.338, 0.45.
  assert.deepEqual(niceTicks([0, 0.45]), [0, 0.1, 0.2, 0.3, 0.4]);
  assert.deepEqual(niceTicks([0, 1]), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(niceTicks([0, 1], 4), [0, 0.25, 0.5, 0.75, 1]);
  assert.deepEqual(niceTicks([0.13, 0.37]), [0.15, 0.2, 0.25, 0.3, 0.35]);
  assert.deepEqual(niceTicks([0.2, 0.2]), [0.2]);
});

Deno.test("no tick is outside the domain", () => {
  for (const domain of [[0.013, 0.987], [-3.2, 7.9], [0.1, 0.1004], [1e6, 1.7e6]] as [number, number][]) {
    const ticks = niceTicks(domain);
    assert.ok(ticks.length >= 2, `${domain}`);
    assert.ok(ticks.every((t) => t >= domain[0] && t <= domain[1]), `${domain}: ${ticks}`);
  }
  const hours: [number, number] = [MONDAY + 15 * 60_000, MONDAY + 7 * DAY - 15 * 60_000];
  assert.ok(timeTicks(hours, 40 * HOUR).every((t) => t >= hours[0] && t <= hours[1]));
});

Deno.test("time ticks fall on whole hours, days or Monday-started weeks, the smallest step with room", () => {
  // A week from Monday 13:00 with labels needing 42 hours: midnights two days apart (day 20780 is even).
  const week: [number, number] = [MONDAY + 13 * HOUR, MONDAY + 7 * DAY + 13 * HOUR];
  assert.deepEqual(timeTicks(week, 42 * HOUR), [2, 4, 6].map((d) => MONDAY + d * DAY));
  assert.deepEqual(
    timeTicks([MONDAY, MONDAY + 3 * HOUR], HOUR / 2),
    [0, 1, 2, 3].map((h) => MONDAY + h * HOUR),
  );
  // Weekly points four weeks apart: a tick on each Monday.
  assert.deepEqual(
    timeTicks([MONDAY - 28 * DAY, MONDAY], 6 * DAY),
    [28, 21, 14, 7, 0].map((d) => MONDAY - d * DAY),
  );
});

Deno.test("one instant, or a domain no step boundary falls in, still has a tick and no repeated one", () => {
  assert.deepEqual(timeTicks([MONDAY + 75 * 60_000, MONDAY + 75 * 60_000], HOUR), [MONDAY + 75 * 60_000]);
  const within: [number, number] = [MONDAY + 10 * 60_000, MONDAY + 50 * 60_000];
  assert.deepEqual(timeTicks(within, 1), within);
  // Two instants of one day written as days: one label.
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  assert.deepEqual(distinctLabels(timeTicks(within, 1), day), [within[0]]);
});

Deno.test("a domain of one value maps to the middle of the range", () => {
  const scale = linearScale([5, 5], [100, 300]);
  assert.deepEqual([scale(5), scale(7)], [200, 200]);
  const y = linearScale([0, 1], [200, 10]);
  assert.deepEqual([y(0), y(0.5), y(1)], [200, 105, 10]);
});
