import assert from "node:assert/strict";
import { decodeGammaMarkets, readGammaMarket } from "../../actors/catalog/mod.ts";
import { gammaMarket } from "../support/gamma_markets.ts";

Deno.test("each malformed Gamma market is reported with its id and the field it gets wrong", () => {
  const cases: [Record<string, unknown>, string | null, string][] = [
    [{ id: undefined }, null, "id: Invalid input"],
    [{ id: " " }, null, "id is empty"],
    [{ question: "  " }, "612345", "question is empty"],
    [{ outcomes: '["Yes", "No"' }, "612345", "outcomes is not a JSON list of names"],
    [{ outcomes: '["Yes"]', outcomePrices: '["1"]' }, "612345", "1 outcomes (at least two are needed)"],
    [{ clobTokenIds: '["1"]' }, "612345", "1 clobTokenIds for 2 outcomes"],
    [{ clobTokenIds: '["1", "1"]' }, "612345", "two outcomes have the same id"],
    [{ outcomePrices: '["1.5", "-0.5"]' }, "612345", "outcomePrices is not a JSON list of prices in 0..1"],
    [{ outcomePrices: '["0.2", "0.3", "0.5"]' }, "612345", "3 outcomePrices for 2 outcomes"],
    [{ endDate: "next Tuesday" }, "612345", "endDate is missing or not a timestamp"],
    [
      { startDate: undefined, createdAt: undefined },
      "612345",
      "startDate (else createdAt) is missing or not a timestamp",
    ],
    [{ closedTime: "later" }, "612345", "closedTime is not a timestamp"],
    [{ liquidity: "lots", liquidityNum: undefined }, "612345", "liquidity is not a number"],
    [{ volume24hr: "many" }, "612345", "volume24hr is not a number"],
  ];
  for (const [overrides, sourceMarketId, reason] of cases) {
    const reading = readGammaMarket(gammaMarket(overrides));
    assert.ok("malformed" in reading, JSON.stringify(overrides));
    assert.equal(reading.malformed.sourceMarketId, sourceMarketId, JSON.stringify(overrides));
    assert.ok(reading.malformed.reason.startsWith(reason), `${reading.malformed.reason} ≠ ${reason}`);
  }
  const page = decodeGammaMarkets([gammaMarket(), "not a market", gammaMarket({ id: 7, endDate: "" })]);
  assert.equal(page.markets.length, 1);
  assert.deepEqual(page.malformed, [
    { sourceMarketId: null, reason: "Invalid input: expected object, received string" },
    { sourceMarketId: "7", reason: "endDate is missing or not a timestamp" },
  ]);
});
