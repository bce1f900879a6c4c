import assert from "node:assert/strict";
import { isoAt } from "../../actors/kernel/mod.ts";
import {
  admissionRefusal,
  type AdmissionRules,
  admitMarket,
  eventIdFor,
  updateFromMarket,
} from "../../actors/catalog/mod.ts";
import { cleanText, MARKET_LIMITS, sanitizeMarket } from "../../actors/catalog/mod.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import { UNRESOLVED } from "../../storage/event_record.ts";
import { MARKET_NOW_MS, NO, resolvedTo, sourceMarket, voidedAt, YES } from "../support/markets.ts";

const RULES: AdmissionRules = {
  minLiquidityUsd: 1_000,
  minVolumeUsd: 2_000,
  lastSeenResolutionMs: 15 * 60_000,
};
const NOW = MARKET_NOW_MS;
const MINUTE = 60_000;

function admitted(): EventRecord {
  return admitMarket(sourceMarket(), NOW);
}

Deno.test("a live market with prices, liquidity and volume at the minimums is admitted", () => {
  assert.equal(admissionRefusal(sourceMarket(), NOW, RULES), null);
  assert.equal(admissionRefusal(sourceMarket({ liquidityUsd: 1_000, volumeUsd: 2_000 }), NOW, RULES), null);
  assert.equal(admissionRefusal(sourceMarket({ endDate: isoAt(NOW + 1) }), NOW, RULES), null);
});

Deno.test("admission refuses a market for each rule it breaks, with the reason", async (t) => {
  const cases: Array<[string, Parameters<typeof sourceMarket>[0], string]> = [
    ["resolved", { resolution: resolvedTo(YES, isoAt(NOW - MINUTE)) }, "already settled"],
    ["voided", { resolution: voidedAt(isoAt(NOW - MINUTE)) }, "already settled"],
    ["ending now", { endDate: isoAt(NOW) }, "already ended"],
    ["ended", { endDate: "2026-11-01T00:00:00.000Z" }, "already ended"],
    [
      "one outcome",
      { outcomes: [{ outcomeId: YES, name: "Yes" }], outcomePrices: { [YES]: 1 } },
      "fewer than two outcomes",
    ],
    ["no prices", { outcomePrices: {} }, "no prices"],
    ["a price missing", { outcomePrices: { [YES]: 0.6 } }, "no prices"],
    ["thin liquidity", { liquidityUsd: 999.99 }, "liquidity below minimum"],
    ["small volume", { volumeUsd: 1_999.99 }, "volume below minimum"],
  ];
  for (const [name, overrides, reason] of cases) {
    await t.step(`${name}: ${reason}`, () => {
      assert.equal(admissionRefusal(sourceMarket(overrides), NOW, RULES), reason);
    });
  }
});

Deno.test("an admitted event records its admission values once, from the market at admission", () => {
  const market = sourceMarket();
  const event = admitMarket(market, NOW);
  assert.deepEqual(event, {
    id: "polymarket-612345",
    source: "polymarket",
    sourceMarketId: "612345",
    question: market.question,
    description: market.description,
    outcomes: [{ outcomeId: YES, name: "Yes" }, { outcomeId: NO, name: "No" }],
    endDate: "2026-12-31T00:00:00.000Z",
    startDate: "2026-10-01T08:00:00.000Z",
    tagsAtAdmission: [2, 100328],
    liquidityUsd: 48_211.05,
    volumeUsd: 1_250_000.75,
    volumeRecentUsd: 38_210.5,
    currentLiquidityUsd: 48_211.05,
    currentVolumeUsd: 1_250_000.75,
    currentOutcomePrices: { [YES]: 0.615, [NO]: 0.385 },
    admittedAt: "2026-11-20T12:00:00.000Z",
    lastSeenAt: "2026-11-20T12:00:00.000Z",
    resolution: { ...UNRESOLVED },
    outcomePricesAtAdmission: { [YES]: 0.615, [NO]: 0.385 },
  });
  assert.equal(event.id, eventIdFor("polymarket", "612345"));
});

Deno.test("market text is made storable: no NUL, no lone surrogates, cut by code point", () => {
  const emoji = "\u{1F600}";
  const market = sanitizeMarket(sourceMarket({
    question: "Nul\u0000here?\u0007",
    description: "x".repeat(MARKET_LIMITS.descriptionChars - 1) + emoji + "tail",
  }));
  assert.ok(typeof market !== "string");
  assert.equal(market.question, "Nulhere?");
  assert.equal(Array.from(market.description).length, MARKET_LIMITS.descriptionChars);
  assert.ok(market.description.endsWith(emoji), "the emoji is kept whole, not cut in half");
  assert.equal(cleanText("a\uD800b", 10), "a\uFFFDb");
  const many = sourceMarket({
    outcomes: Array.from({ length: 40 }, (_, i) => ({ outcomeId: `o${i}`, name: `O${i}` })),
  });
  assert.equal(sanitizeMarket(many), "too many outcomes");
});

Deno.test("a market quoting only zero prices is not admitted and does not overwrite real prices", () => {
  const zero = sourceMarket({ outcomePrices: { [YES]: 0, [NO]: 0 } });
  assert.equal(admissionRefusal(zero, NOW, RULES), "all prices are zero");
  const event = admitMarket(sourceMarket(), NOW);
  const next = updateFromMarket(event, zero, NOW + RULES.lastSeenResolutionMs, RULES);
  assert.deepEqual(next?.currentOutcomePrices, event.currentOutcomePrices);
});

Deno.test("a later sighting updates the current values and never the admission values", () => {
  const event = admitted();
  const market = sourceMarket({
    outcomePrices: { [YES]: 0.8, [NO]: 0.2 },
    liquidityUsd: 90_000,
    volumeUsd: 2_000_000,
    volume24hUsd: 1_234,
    tagIds: [7],
    question: "Will the Fed cut rates in December 2026?",
    endDate: "2027-01-15T00:00:00.000Z",
  });
  const next = updateFromMarket(event, market, NOW + MINUTE, RULES);
  assert.ok(next);
  assert.deepEqual(next.currentOutcomePrices, { [YES]: 0.8, [NO]: 0.2 });
  assert.equal(next.currentLiquidityUsd, 90_000);
  assert.equal(next.currentVolumeUsd, 2_000_000);
  assert.equal(next.volumeRecentUsd, 1_234);
  assert.equal(next.question, "Will the Fed cut rates in December 2026?");
  assert.equal(next.endDate, "2027-01-15T00:00:00.000Z");
  assert.equal(next.lastSeenAt, isoAt(NOW + MINUTE));
  assert.deepEqual(
    [next.admittedAt, next.liquidityUsd, next.volumeUsd, next.tagsAtAdmission, next.outcomePricesAtAdmission],
    [event.admittedAt, event.liquidityUsd, event.volumeUsd, [2, 100328], { [YES]: 0.615, [NO]: 0.385 }],
  );
});

Deno.test("an unchanged market writes nothing until the last-seen heartbeat is due", () => {
  const event = admitted();
  assert.equal(updateFromMarket(event, sourceMarket(), NOW, RULES), null);
  assert.equal(updateFromMarket(event, sourceMarket(), NOW + RULES.lastSeenResolutionMs - 1, RULES), null);
  const heartbeat = updateFromMarket(event, sourceMarket(), NOW + RULES.lastSeenResolutionMs, RULES);
  assert.deepEqual(heartbeat, { ...event, lastSeenAt: isoAt(NOW + RULES.lastSeenResolutionMs) });
});

/** The same value with every object's keys in reverse order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([key, item]) => [key, reverseKeys(item)]));
}

Deno.test("an event read back with its keys in another order is still unchanged", () => {
  // PostgreSQL JSONB hands objects back with their keys in its own order.
  const reordered = reverseKeys(admitted()) as EventRecord;
  assert.notEqual(JSON.stringify(reordered), JSON.stringify(admitted()));
  assert.equal(updateFromMarket(reordered, sourceMarket(), NOW + MINUTE, RULES), null);
});

Deno.test("a resolved market settles the event with the winning outcome's name", () => {
  const market = sourceMarket({ resolution: resolvedTo(NO, "2026-12-31T01:00:00.000Z") });
  const next = updateFromMarket(admitted(), market, NOW + MINUTE, RULES);
  assert.deepEqual(next?.resolution, {
    resolvedAt: "2026-12-31T01:00:00.000Z",
    resolutionStatus: "resolved",
    winningOutcomeId: NO,
    winningOutcomeName: "No",
    finalOutcomePrices: { [YES]: 0, [NO]: 1 },
  });
});

Deno.test("a voided market settles the event with no winner", () => {
  const next = updateFromMarket(
    admitted(),
    sourceMarket({ resolution: voidedAt("2026-12-31T01:00:00.000Z") }),
    NOW,
    RULES,
  );
  assert.deepEqual(next?.resolution, {
    resolvedAt: "2026-12-31T01:00:00.000Z",
    resolutionStatus: "voided",
    winningOutcomeId: null,
    winningOutcomeName: null,
    finalOutcomePrices: { [YES]: 0.5, [NO]: 0.5 },
  });
});

Deno.test("a settled resolution is final whatever the source reports later", () => {
  const settled = updateFromMarket(
    admitted(),
    sourceMarket({ resolution: resolvedTo(YES, isoAt(NOW)) }),
    NOW,
    RULES,
  );
  assert.ok(settled);
  for (
    const resolution of [
      sourceMarket().resolution,
      resolvedTo(NO, isoAt(NOW + MINUTE)),
      voidedAt(isoAt(NOW + MINUTE)),
    ]
  ) {
    const later = updateFromMarket(settled, sourceMarket({ resolution }), NOW + MINUTE, RULES);
    assert.equal(later, null, "nothing else changed, so nothing is written");
    const heartbeat = updateFromMarket(
      settled,
      sourceMarket({ resolution }),
      NOW + RULES.lastSeenResolutionMs,
      RULES,
    );
    assert.deepEqual(heartbeat?.resolution, settled.resolution);
  }
});

Deno.test("a sighting without prices keeps the previous prices", () => {
  const event = admitted();
  const next = updateFromMarket(
    event,
    sourceMarket({ outcomePrices: {}, liquidityUsd: 50_000 }),
    NOW + MINUTE,
    RULES,
  );
  assert.ok(next, "the liquidity change is written");
  assert.deepEqual(next.currentOutcomePrices, { [YES]: 0.615, [NO]: 0.385 });
  assert.equal(next.currentLiquidityUsd, 50_000);
  assert.equal(updateFromMarket(event, sourceMarket({ outcomePrices: {} }), NOW + MINUTE, RULES), null);
});
