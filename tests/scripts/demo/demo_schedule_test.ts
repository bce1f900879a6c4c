/**
 * The demo's seeded choices (scripts/demo/demo_schedule.ts): the same seed picks the same markets
 * and winners on every run, whatever else happens; the winners follow the hidden probability, not
 * the market; and the default seed's schedule on the shipped snapshot is the one docs show.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../actors/kernel/mod.ts";
import { currentPool } from "../../../scripts/demo/demo_resolver.ts";
import { DEFAULT_SEED } from "../../../scripts/demo/demo_options.ts";
import {
  DEFAULT_PLAN,
  drawWinner,
  hiddenProbabilities,
  pickMarkets,
  type PoolMarket,
  seededUniform,
} from "../../../scripts/demo/demo_schedule.ts";
import { runJobOnce } from "../../support/jobs.ts";
import { openTestService, TEST_START_MS } from "../../support/test_service.ts";

/** A binary pool market whose "yes" trades at `price`. */
function market(id: number, price: number): PoolMarket {
  return { eventId: `polymarket-${id}`, outcomeIds: ["yes", "no"], prices: { yes: price, no: 1 - price } };
}

const POOL = Array.from({ length: 30 }, (_, i) => market(600_000 + i, 0.1 + 0.025 * i));

Deno.test("a seeded draw is a fixed number in [0, 1) of the seed and the labels alone", () => {
  // The noisy agent draws the same way in Python (tests/scripts/demo/demo_agents_test.ts).
  assert.equal(seededUniform(4, "winner", "polymarket-600480"), 0.6908708652848574);
  assert.equal(seededUniform(0), 0.37470885529162956);
  assert.notEqual(
    seededUniform(4, "winner", "polymarket-600480"),
    seededUniform(5, "winner", "polymarket-600480"),
  );
  for (let seed = 0; seed < 200; seed++) {
    const draw = seededUniform(seed, "pick", "polymarket-1");
    assert.ok(draw >= 0 && draw < 1, `${draw}`);
  }
});

Deno.test("the same seed picks the same markets, in pool order, among the pool's first", () => {
  const plan = { count: 12, among: 16 };
  const picked = pickMarkets(7, POOL, plan);
  assert.deepEqual(pickMarkets(7, POOL, plan), picked);
  // Markets past the first 16 play no part.
  assert.deepEqual(pickMarkets(7, [...POOL.slice(0, 16), ...POOL.slice(16).toReversed()], plan), picked);
  assert.equal(picked.length, 12);
  const positions = picked.map((chosen) => POOL.indexOf(chosen));
  assert.deepEqual(positions, positions.toSorted((a, b) => a - b));
  assert.ok(positions.every((position) => position < 16));
  assert.notDeepEqual(pickMarkets(8, POOL, plan), picked, "another seed picks other markets");
  assert.throws(() => pickMarkets(7, POOL, { count: 5, among: 4 }), RangeError);
});

Deno.test("the hidden probability is 0.5 + 0.6 × (price − 0.5) for two outcomes, toward 1/n for more", () => {
  const two = hiddenProbabilities(["yes", "no"], { yes: 0.8, no: 0.2 });
  assert.ok(Math.abs(two.yes! - 0.68) < 1e-12 && Math.abs(two.no! - 0.32) < 1e-12, JSON.stringify(two));
  // Prices not summing to one are normalised first: 0.45 / 0.9 = 0.5.
  assert.deepEqual(hiddenProbabilities(["yes", "no"], { yes: 0.45, no: 0.45 }), { yes: 0.5, no: 0.5 });
  const three = hiddenProbabilities(["a", "b", "c"], { a: 0.7, b: 0.2, c: 0.1 });
  assert.ok(Math.abs(three.a! - (1 / 3 + 0.6 * (0.7 - 1 / 3))) < 1e-12);
  assert.ok(Math.abs(three.a! + three.b! + three.c! - 1) < 1e-12);
});

Deno.test("a winner is the seed's, and over many seeds wins as often as its hidden probability", () => {
  const sure = market(1, 0.9);
  assert.equal(drawWinner(3, sure), drawWinner(3, sure));
  let yes = 0;
  const seeds = 4_000;
  for (let seed = 0; seed < seeds; seed++) if (drawWinner(seed, sure) === "yes") yes++;
  // Hidden 0.74, not the market's 0.9: 4,000 draws are within 0.03 of it (over 4 standard deviations).
  assert.ok(Math.abs(yes / seeds - 0.74) < 0.03, `yes won ${yes} of ${seeds}`);
});

Deno.test("the default seed resolves the same twelve markets with the same winners on the shipped snapshot", async () => {
  await using service = await openTestService({
    env: { FGW_MARKET_SOURCE: "snapshot" },
    clock: new ManualClock(TEST_START_MS),
  });
  await runJobOnce(service.catalog.ingestion, { leases: service.storage.jobLeases, nowMs: TEST_START_MS });
  const schedule = pickMarkets(DEFAULT_SEED, currentPool(service, TEST_START_MS), DEFAULT_PLAN);
  const resolved = schedule.map((chosen) =>
    `${chosen.sourceMarketId} ${chosen.names[drawWinner(DEFAULT_SEED, chosen)]}`
  );
  assert.deepEqual(resolved, [
    "600480 Warriors",
    "600146 Under",
    "600439 No",
    "600386 Liverpool",
    "600284 No",
    "600066 No",
    "600293 Man City",
    "600210 Bucks",
    "600755 Under",
    "600010 No",
    "600644 Warriors",
    "600691 No",
  ]);
});
