import assert from "node:assert/strict";
import { ManualClock, type UpstreamObserver } from "../../actors/kernel/mod.ts";
import {
  ALPHA_PRICE_FN,
  ChainPriceSource,
  type ChainPriceSourceOptions,
  DYNAMIC_INFO_FN,
  PriceSourceError,
} from "../../actors/prices/mod.ts";
import { type FakeCoinGecko, startFakeCoinGecko } from "../support/fake_coingecko.ts";
import { type FakeSubtensor, startFakeSubtensor } from "../support/fake_subtensor.ts";
import {
  dynamicInfoFixture,
  encodeAlphaPrice,
  encodeDynamicInfoAnswer,
} from "../support/dynamic_info_scale.ts";

const NETUID = 41;
const START_MS = Date.UTC(2026, 10, 20, 12);

interface Upstreams extends AsyncDisposable {
  coingecko: FakeCoinGecko;
  subtensor: FakeSubtensor;
  /** Waits the HTTP client asked for between attempts (none really taken). */
  sleeps: number[];
  attempts: string[];
  source(options?: Partial<ChainPriceSourceOptions>): ChainPriceSource;
}

/** Fake CoinGecko (TAO at $412.5) and a fake Subtensor answering both state_calls for subnet 41. */
function upstreams(): Upstreams {
  const coingecko = startFakeCoinGecko({ taoUsd: 412.5 });
  const subtensor = startFakeSubtensor();
  subtensor.setStateCall(ALPHA_PRICE_FN, NETUID, encodeAlphaPrice(9_531_500n));
  subtensor.setStateCall(DYNAMIC_INFO_FN, NETUID, encodeDynamicInfoAnswer(dynamicInfoFixture()));
  const sleeps: number[] = [];
  const attempts: string[] = [];
  const observer: UpstreamObserver = {
    onAttempt: (upstream, _ms, outcome) => attempts.push(`${upstream} ${outcome}`),
  };
  const clock = new ManualClock(START_MS);
  return {
    coingecko,
    subtensor,
    sleeps,
    attempts,
    source: (options = {}) =>
      new ChainPriceSource({
        coingeckoUrl: coingecko.url,
        subtensorUrl: subtensor.url,
        netuid: NETUID,
        clock: clock.now,
        retries: 2,
        sleep: (ms) => {
          sleeps.push(ms);
          return Promise.resolve();
        },
        observer,
        ...options,
      }),
    [Symbol.asyncDispose]: async () => {
      await coingecko.close();
      await subtensor.close();
    },
  };
}

const signal = () => new AbortController().signal;

async function failure(source: ChainPriceSource): Promise<PriceSourceError> {
  try {
    await source.fetch(signal());
  } catch (error) {
    assert.ok(error instanceof PriceSourceError, `expected a PriceSourceError, got ${error}`);
    return error;
  }
  assert.fail("the prices were read");
}

Deno.test("the chain source reads TAO/USD from CoinGecko and the alpha price and emission from Subtensor", async () => {
  await using up = upstreams();
  const prices = await up.source().fetch(signal());
  assert.deepEqual(prices, {
    taoUsd: 412.5,
    alphaTao: 0.0095315,
    minerAlphaPerDay: 2952,
    at: "2026-11-20T12:00:00.000Z",
  });
  assert.deepEqual(up.coingecko.requests.map(({ path, query }) => ({ path, query })), [
    { path: "/api/v3/simple/price", query: { ids: "bittensor", vs_currencies: "usd" } },
  ]);
  assert.match(up.coingecko.requests[0]!.userAgent ?? "", /^forecasting-gateway\//);
  assert.deepEqual(
    up.subtensor.calls.map((call) => call.params).toSorted(),
    [[ALPHA_PRICE_FN, "0x2900"], [DYNAMIC_INFO_FN, "0x2900"]].toSorted(),
  );
  assert.deepEqual(up.attempts.toSorted(), ["coingecko 200", "subtensor 200", "subtensor 200"]);
});

Deno.test("the chain source follows new values at every reading", async () => {
  await using up = upstreams();
  const source = up.source();
  await source.fetch(signal());
  up.coingecko.setTaoUsd(398.25);
  up.subtensor.setStateCall(ALPHA_PRICE_FN, NETUID, encodeAlphaPrice(12_000_000n));
  const fixture = dynamicInfoFixture({ alphaOutEmission: 500_000_000n, subnetIdentity: null });
  up.subtensor.setStateCall(DYNAMIC_INFO_FN, NETUID, encodeDynamicInfoAnswer(fixture));
  const prices = await source.fetch(signal());
  assert.equal(prices.taoUsd, 398.25);
  assert.equal(prices.alphaTao, 0.012);
  assert.equal(prices.minerAlphaPerDay, 1476);
});

Deno.test("a CoinGecko 429 is retried after its Retry-After, then the prices are read", async () => {
  await using up = upstreams();
  up.coingecko.failNext(1, { kind: "status", status: 429, retryAfter: "7" });
  const prices = await up.source().fetch(signal());
  assert.equal(prices.taoUsd, 412.5);
  assert.deepEqual(up.sleeps, [7_000]);
  assert.equal(up.coingecko.requests.length, 2);
  assert.ok(up.attempts.includes("coingecko 429"));
});

Deno.test("CoinGecko failing on every attempt (500) fails the reading with the status, after the retries", async () => {
  await using up = upstreams();
  up.coingecko.failNext(3, { kind: "status", status: 500 });
  const error = await failure(up.source());
  assert.match(error.message, /TAO price from CoinGecko: HTTP 500 \(3 attempts\)/);
  assert.equal(up.coingecko.requests.length, 3);
});

Deno.test("a CoinGecko answer that is garbage, or JSON without a positive bittensor.usd, fails the reading", async () => {
  await using up = upstreams();
  up.coingecko.failNext(1, { kind: "body", body: "<html>Just a moment...</html>" });
  assert.match((await failure(up.source())).message, /CoinGecko: the answer is not JSON/);
  for (const body of ["{}", '{"bittensor":{}}', '{"bittensor":{"usd":"412.5"}}', '{"bittensor":{"usd":0}}']) {
    up.coingecko.failNext(1, { kind: "body", body });
    assert.match((await failure(up.source())).message, /no positive bittensor\.usd/, body);
  }
});

Deno.test("a CoinGecko that does not answer in time fails the reading as a timeout", async () => {
  await using up = upstreams();
  up.coingecko.failNext(1, { kind: "hang", ms: 5_000 });
  // Subtensor's answers, read meanwhile, must come within the same timeout: seconds, for a busy machine.
  const error = await failure(up.source({ timeoutMs: 2_000, retries: 0 }));
  assert.match(error.message, /CoinGecko: no answer within 2000 ms \(1 attempt\)/);
  assert.ok(up.attempts.includes("coingecko timeout"));
});

Deno.test("dynamic info None (the subnet does not exist) fails the reading", async () => {
  await using up = upstreams();
  up.subtensor.setStateCall(DYNAMIC_INFO_FN, NETUID, encodeDynamicInfoAnswer(null));
  const error = await failure(up.source());
  assert.match(error.message, /get_dynamic_info: subnet 41 does not exist \(None\)/);
});

Deno.test("a truncated dynamic info or alpha price payload fails the reading, never a partial one", async () => {
  await using up = upstreams();
  const whole = encodeDynamicInfoAnswer(dynamicInfoFixture());
  up.subtensor.setStateCall(DYNAMIC_INFO_FN, NETUID, whole.slice(0, whole.length - 3));
  assert.match((await failure(up.source())).message, /Cannot decode Option<DynamicInfo>/);
  up.subtensor.setStateCall(DYNAMIC_INFO_FN, NETUID, whole);
  up.subtensor.setStateCall(ALPHA_PRICE_FN, NETUID, encodeAlphaPrice(9_531_500n).slice(0, 4));
  assert.match((await failure(up.source())).message, /Cannot decode current_alpha_price \(u64\)/);
});

Deno.test("a JSON-RPC error object, a result that is not hex or a body that is not JSON-RPC fails the reading", async () => {
  await using up = upstreams();
  up.subtensor.failNext(1, { kind: "rpc_error", code: 4003, message: "Client error: Execution failed" });
  assert.match(
    (await failure(up.source())).message,
    /Cannot call Subtensor \w+: JSON-RPC error 4003: Client error: Execution failed/,
  );
  up.subtensor.failNext(1, { kind: "result", result: "0xzz" });
  assert.match((await failure(up.source())).message, /expected 0x-prefixed hex/);
  up.subtensor.failNext(1, { kind: "body", body: '{"hello":"world"}' });
  assert.match((await failure(up.source())).message, /the answer is not for this call/);
});

Deno.test("a subnet the node has no answer for fails with the node's error", async () => {
  await using up = upstreams();
  const error = await failure(up.source({ netuid: 42 }));
  assert.match(error.message, /JSON-RPC error 4003: Client error: Execution failed: no subnet 42/);
});

Deno.test("a Subtensor 503 is retried like CoinGecko's errors", async () => {
  await using up = upstreams();
  up.subtensor.failNext(1, { kind: "status", status: 503, retryAfter: "1" });
  const prices = await up.source().fetch(signal());
  assert.equal(prices.minerAlphaPerDay, 2952);
  assert.deepEqual(up.sleeps, [1_000]);
  assert.ok(up.attempts.includes("subtensor 503"));
});

Deno.test("the caller's abort ends the reading with its reason, not as a source failure", async () => {
  await using up = upstreams();
  up.coingecko.failNext(1, { kind: "hang", ms: 5_000 });
  const abort = new AbortController();
  const reading = up.source().fetch(abort.signal);
  setTimeout(() => abort.abort(new Error("scheduler stopped")), 20);
  await assert.rejects(reading, /scheduler stopped/);
});
