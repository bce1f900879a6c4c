import assert from "node:assert/strict";
import { isoAt } from "../../actors/kernel/mod.ts";
import { GammaMarketSource, type GammaMarketSourceOptions } from "../../actors/catalog/mod.ts";
import { MarketSourceError, type SourceMarket } from "../../actors/catalog/mod.ts";
import { type FakeGamma, generateGammaMarkets, readAllPages, startFakeGamma } from "../support/fake_gamma.ts";
import { GAMMA_MARKET_TOKENS, gammaMarket, type RawGammaMarket } from "../support/gamma_markets.ts";

const NOW = Date.parse("2026-11-25T00:00:00.000Z");
const DAY_MS = 24 * 60 * 60 * 1000;
const { yes: YES, no: NO } = GAMMA_MARKET_TOKENS;

/** A source on the fake that never really waits: it records each wait instead. */
function sourceFor(gamma: FakeGamma, options: Partial<GammaMarketSourceOptions> = {}) {
  const sleeps: number[] = [];
  const source = new GammaMarketSource({
    baseUrl: gamma.url,
    clock: () => NOW,
    backoffBaseMs: 100,
    random: () => 0,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    ...options,
  });
  return { source, sleeps };
}

/** Serves `markets` and returns what one sweep decodes. */
async function sweep(markets: RawGammaMarket[]): Promise<{ markets: SourceMarket[]; malformed: number }> {
  await using gamma = startFakeGamma(markets);
  return await readAllPages(sourceFor(gamma).source);
}

async function decodeOne(market: RawGammaMarket): Promise<SourceMarket> {
  const result = await sweep([market]);
  assert.equal(result.malformed, 0);
  assert.equal(result.markets.length, 1);
  return result.markets[0]!;
}

const closedMarket = (overrides: RawGammaMarket) =>
  gammaMarket({
    closed: true,
    closedTime: "2026-11-24 03:12:45+00",
    umaResolutionStatus: "resolved",
    ...overrides,
  });

Deno.test("a sweep pages through every open and recently closed market exactly once", async () => {
  const recent = generateGammaMarkets(250, { seed: 11, nowMs: NOW });
  const old = gammaMarket({
    id: "1",
    closed: true,
    endDate: isoAt(NOW - 45 * DAY_MS),
    umaResolutionStatus: "resolved",
  });
  await using gamma = startFakeGamma([old, ...recent]);
  const { source } = sourceFor(gamma, { pageSize: 40 });

  const result = await readAllPages(source);

  const ids = result.markets.map((market) => market.sourceMarketId);
  assert.deepEqual(ids.toSorted(), recent.map((market) => String(market.id)).toSorted());
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(result.malformed, 0);
  const open = recent.filter((market) => market.closed !== true).length;
  assert.equal(result.pages, Math.ceil(open / 40) + Math.ceil((recent.length - open) / 40));
  const first = gamma.queries[0]!;
  assert.equal(first.get("closed"), "false");
  assert.equal(first.get("include_tag"), "true");
  assert.equal(first.get("limit"), "40");
  const closedQueries = gamma.queries.filter((query) => query.get("closed") === "true");
  assert.ok(closedQueries.every((query) => query.get("end_date_min") === isoAt(NOW - 30 * DAY_MS)));
});

Deno.test("a live binary market is decoded field by field", async () => {
  const market = await decodeOne(gammaMarket());
  assert.deepEqual(market, {
    source: "polymarket",
    sourceMarketId: "612345",
    question: "Will the Fed cut rates at the December 2026 meeting?",
    description:
      'This market will resolve to "Yes" if the FOMC lowers the target range at its December meeting.',
    outcomes: [{ outcomeId: YES, name: "Yes" }, { outcomeId: NO, name: "No" }],
    outcomePrices: { [YES]: 0.615, [NO]: 0.385 },
    startDate: "2026-10-01T08:01:34.856Z",
    endDate: "2026-11-23T19:00:00.000Z",
    tagIds: [2, 100328],
    liquidityUsd: 48211.0532,
    volumeUsd: 1250000.75,
    volume24hUsd: 38210.5,
    resolution: { status: "unresolved", winningOutcomeId: null, resolvedAt: null, finalOutcomePrices: null },
  });
});

Deno.test("amounts given only as decimal strings are read, and outcomes without token ids are numbered", async () => {
  const market = await decodeOne(gammaMarket({
    liquidityNum: undefined,
    volumeNum: undefined,
    volume24hr: undefined,
    volume24hrClob: "12.5",
    clobTokenIds: undefined,
    outcomes: '["Lakers", "Celtics", "Knicks"]',
    outcomePrices: '["0.2", "0.3", "0.5"]',
  }));
  assert.equal(market.liquidityUsd, 48211.0532);
  assert.equal(market.volumeUsd, 1250000.75);
  assert.equal(market.volume24hUsd, 12.5);
  assert.deepEqual(market.outcomes.map((outcome) => outcome.outcomeId), ["0", "1", "2"]);
  assert.deepEqual(market.outcomePrices, { "0": 0.2, "1": 0.3, "2": 0.5 });
});

Deno.test("timestamps with zone offsets, microseconds or no time are normalised to UTC with milliseconds", async () => {
  const market = await decodeOne(closedMarket({
    startDate: "",
    createdAt: "2026-10-01",
    endDate: "2026-11-23T14:00:00.123456-05:00",
    closedTime: "2026-11-24T08:42:45+05:30",
    outcomePrices: '["1", "0"]',
  }));
  assert.equal(market.startDate, "2026-10-01T00:00:00.000Z");
  assert.equal(market.endDate, "2026-11-23T19:00:00.123Z");
  assert.equal(market.resolution.resolvedAt, "2026-11-24T03:12:45.000Z");
});

Deno.test("a closed market resolved by UMA with one price at 1 is resolved to that outcome", async () => {
  const market = await decodeOne(closedMarket({ outcomePrices: '["0", "1"]' }));
  assert.deepEqual(market.resolution, {
    status: "resolved",
    winningOutcomeId: NO,
    resolvedAt: "2026-11-24T03:12:45.000Z",
    finalOutcomePrices: { [YES]: 0, [NO]: 1 },
  });
});

Deno.test("a 50/50 settlement is voided, with no winner", async () => {
  const market = await decodeOne(closedMarket({ outcomePrices: '["0.5", "0.5"]' }));
  assert.deepEqual(market.resolution, {
    status: "voided",
    winningOutcomeId: null,
    resolvedAt: "2026-11-24T03:12:45.000Z",
    finalOutcomePrices: { [YES]: 0.5, [NO]: 0.5 },
  });
});

Deno.test("a disputed or proposed market stays unresolved even when its prices read 1 and 0", async () => {
  for (const status of ["disputed", "proposed", "challenged"]) {
    const market = await decodeOne(
      closedMarket({ umaResolutionStatus: status, outcomePrices: '["1", "0"]' }),
    );
    assert.equal(market.resolution.status, "unresolved", status);
    assert.equal(market.resolution.winningOutcomeId, null);
  }
});

Deno.test("all-zero prices on a resolved market are not a result", async () => {
  const market = await decodeOne(closedMarket({ outcomePrices: '["0", "0"]' }));
  assert.equal(market.resolution.status, "unresolved");
  assert.deepEqual(market.outcomePrices, { [YES]: 0, [NO]: 0 });
});

Deno.test("a market still open is never resolved, whatever its UMA status", async () => {
  const market = await decodeOne(
    gammaMarket({ umaResolutionStatus: "resolved", outcomePrices: '["1", "0"]' }),
  );
  assert.equal(market.resolution.status, "unresolved");
});

Deno.test("malformed markets are skipped and counted, and the rest of the page is served", async () => {
  const malformed: RawGammaMarket[] = [
    gammaMarket({ id: undefined }),
    gammaMarket({ id: "" }),
    gammaMarket({ question: "  " }),
    gammaMarket({ outcomes: '["Yes", "No"' }),
    gammaMarket({ outcomes: '["Yes"]', outcomePrices: '["1"]', clobTokenIds: undefined }),
    gammaMarket({ outcomePrices: '["0.2", "0.3", "0.5"]' }),
    gammaMarket({ outcomePrices: '["1.5", "-0.5"]' }),
    gammaMarket({ clobTokenIds: '["1"]' }),
    gammaMarket({ endDate: "next Tuesday" }),
    gammaMarket({ endDate: "2026-02-30T00:00:00Z" }),
    gammaMarket({ startDate: undefined, createdAt: undefined }),
    gammaMarket({ liquidity: "lots", liquidityNum: undefined }),
  ];
  const valid = [gammaMarket({ id: "1" }), gammaMarket({ id: "2", outcomePrices: "" })];
  const result = await sweep([valid[0]!, ...malformed, valid[1]!]);
  assert.equal(result.malformed, malformed.length);
  assert.deepEqual(result.markets.map((market) => market.sourceMarketId), ["1", "2"]);
  assert.deepEqual(result.markets[1]!.outcomePrices, {});
});

Deno.test("429 and 503 answers are retried, honouring Retry-After, and the page is then served", async () => {
  await using gamma = startFakeGamma([gammaMarket()]);
  gamma.failNext(1, { kind: "status", status: 429, retryAfter: "3" });
  gamma.failNext(1, { kind: "status", status: 503 });
  const { source, sleeps } = sourceFor(gamma);

  const page = await source.fetchPage(null);

  assert.deepEqual(page.markets.map((market) => market.sourceMarketId), ["612345"]);
  assert.equal(gamma.requests, 3);
  assert.deepEqual(sleeps, [3000, 100]);
});

Deno.test("a Retry-After given as an HTTP date waits until that instant", async () => {
  await using gamma = startFakeGamma([gammaMarket()]);
  gamma.failNext(1, { kind: "status", status: 429, retryAfter: new Date(NOW + 7000).toUTCString() });
  const { source, sleeps } = sourceFor(gamma);
  await source.fetchPage(null);
  assert.deepEqual(sleeps, [7000]);
});

Deno.test("backoff doubles on each retry and no wait exceeds maxDelayMs", async () => {
  await using gamma = startFakeGamma([gammaMarket()]);
  gamma.failNext(4, { kind: "status", status: 502 });
  gamma.failNext(1, { kind: "status", status: 429, retryAfter: "3600" });
  const { source, sleeps } = sourceFor(gamma, { random: () => 0.999, maxRetries: 5, maxDelayMs: 1000 });
  await source.fetchPage(null);
  assert.deepEqual(sleeps.map(Math.round), [100, 200, 400, 800, 1000]);
});

Deno.test("after maxRetries failed attempts the source gives up with MarketSourceError", async () => {
  await using gamma = startFakeGamma([gammaMarket()]);
  gamma.failNext(10, { kind: "status", status: 503 });
  const { source, sleeps } = sourceFor(gamma, { maxRetries: 2 });
  await assert.rejects(source.fetchPage(null), (error: unknown) => {
    assert.ok(error instanceof MarketSourceError);
    assert.match(error.message, /HTTP 503 \(3 attempts\)/);
    return true;
  });
  assert.equal(gamma.requests, 3);
  assert.equal(sleeps.length, 2);
});

Deno.test("a client error other than 429 is not retried", async () => {
  await using gamma = startFakeGamma([gammaMarket()]);
  gamma.failNext(1, { kind: "status", status: 400 });
  const { source } = sourceFor(gamma);
  await assert.rejects(source.fetchPage(null), MarketSourceError);
  assert.equal(gamma.requests, 1);
});

Deno.test("an answer that is not JSON, or not a page of markets, is a MarketSourceError", async () => {
  await using gamma = startFakeGamma([gammaMarket()]);
  gamma.failNext(1, { kind: "body", body: "<html>Bad gateway</html>" });
  gamma.failNext(1, { kind: "body", body: '{"data": []}' });
  const { source } = sourceFor(gamma);
  await assert.rejects(source.fetchPage(null), { name: "MarketSourceError", message: /not JSON/ });
  await assert.rejects(source.fetchPage(null), { name: "MarketSourceError", message: /not a keyset page/ });
});

Deno.test("a request slower than timeoutMs is abandoned and retried", async () => {
  await using gamma = startFakeGamma([gammaMarket()]);
  gamma.failNext(1, { kind: "hang", ms: 5000 });
  // The retry must be answered within the timeout: seconds, for a busy machine.
  const { source, sleeps } = sourceFor(gamma, { timeoutMs: 2_000, maxRetries: 1 });
  const page = await source.fetchPage(null);
  assert.equal(page.markets.length, 1);
  assert.equal(gamma.requests, 2);
  assert.equal(sleeps.length, 1);
});

Deno.test("requests that keep timing out end in a MarketSourceError naming the timeout", async () => {
  await using gamma = startFakeGamma([gammaMarket()]);
  gamma.failNext(2, { kind: "hang", ms: 5000 });
  const { source } = sourceFor(gamma, { timeoutMs: 50, maxRetries: 1 });
  await assert.rejects(source.fetchPage(null), {
    name: "MarketSourceError",
    message: /no answer within 50 ms/,
  });
});

Deno.test("a network error is retried", async () => {
  await using gamma = startFakeGamma([gammaMarket()]);
  let calls = 0;
  const flaky: typeof fetch = (input, init) =>
    calls++ === 0 ? Promise.reject(new TypeError("connection reset")) : fetch(input, init);
  const { source, sleeps } = sourceFor(gamma, { fetch: flaky });
  const page = await source.fetchPage(null);
  assert.equal(page.markets.length, 1);
  assert.equal(calls, 2);
  assert.equal(sleeps.length, 1);
});

Deno.test("a caller's abort stops the request without retrying", async () => {
  await using gamma = startFakeGamma([gammaMarket()]);
  const { source } = sourceFor(gamma);
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(source.fetchPage(null, controller.signal), { name: "AbortError" });
  assert.equal(gamma.requests, 0);
});

Deno.test("a next cursor that repeats the current one is reported instead of looping", async () => {
  await using gamma = startFakeGamma([]);
  gamma.failNext(2, { kind: "body", body: '{"markets": [], "next_cursor": "c2FtZQ=="}' });
  const { source } = sourceFor(gamma);
  const first = await source.fetchPage(null);
  assert.notEqual(first.nextCursor, null);
  await assert.rejects(source.fetchPage(first.nextCursor), { name: "MarketSourceError", message: /repeats/ });
});

Deno.test("a cursor the source did not issue is refused with a TypeError", async () => {
  await using gamma = startFakeGamma([]);
  const { source } = sourceFor(gamma);
  await assert.rejects(source.fetchPage("not-a-cursor"), TypeError);
  assert.equal(gamma.requests, 0);
});

Deno.test("the page size must be within Gamma's keyset limit", () => {
  assert.throws(() => new GammaMarketSource({ baseUrl: "http://127.0.0.1:1", pageSize: 101 }), RangeError);
  assert.throws(() => new GammaMarketSource({ baseUrl: "http://127.0.0.1:1", pageSize: 0 }), RangeError);
});
