import assert from "node:assert/strict";
import { type LogLine, ManualClock } from "../../../actors/kernel/mod.ts";
import { ALPHA_PRICE_FN, DYNAMIC_INFO_FN } from "../../../actors/prices/mod.ts";
import { loadConfig } from "../../../scripts/service/config.ts";
import { createService } from "../../../scripts/service/service.ts";
import { openKvStorage } from "../../../storage/kv/kv_storage.ts";
import { startFakeCoinGecko } from "../../support/fake_coingecko.ts";
import { startFakeSubtensor } from "../../support/fake_subtensor.ts";
import {
  dynamicInfoFixture,
  encodeAlphaPrice,
  encodeDynamicInfoAnswer,
} from "../../support/dynamic_info_scale.ts";
import { openTestService, TEST_START_MS } from "../../support/test_service.ts";

const DEMO = new URL("../../../actors/prices/demo_prices.json", import.meta.url).pathname;
/** The other jobs `scheduler.tick()` runs read local files, never the network. */
const OFFLINE = {
  FGW_MARKET_SOURCE: "snapshot",
  FGW_METAGRAPH_SOURCE: "file",
  FGW_METAGRAPH_FILE: new URL("../../../actors/validators/demo_metagraph.json", import.meta.url).pathname,
};

Deno.test("the prices settings default to the chain source every 5 minutes, and a file source needs its file", () => {
  const config = loadConfig({});
  assert.equal(config.FGW_PRICES_SOURCE, "chain");
  assert.equal(config.FGW_COINGECKO_URL, "https://api.coingecko.com/api/v3");
  assert.equal(config.FGW_PRICES_FILE, undefined);
  assert.equal(config.FGW_PRICES_SYNC_MS, 300_000);
  assert.equal(config.FGW_NETUID, 41);
  assert.equal(config.FGW_SUBTENSOR_URL, "https://entrypoint-finney.opentensor.ai");
  assert.throws(
    () => loadConfig({ FGW_PRICES_SOURCE: "file" }),
    /FGW_PRICES_FILE: FGW_PRICES_FILE is required when FGW_PRICES_SOURCE=file/,
  );
  assert.equal(loadConfig({ FGW_PRICES_SOURCE: "file", FGW_PRICES_FILE: DEMO }).FGW_PRICES_FILE, DEMO);
  assert.throws(() => loadConfig({ FGW_PRICES_SOURCE: "coingecko" }), /FGW_PRICES_SOURCE/);
  assert.throws(() => loadConfig({ FGW_COINGECKO_URL: "not a url" }), /FGW_COINGECKO_URL/);
  assert.throws(() => loadConfig({ FGW_PRICES_SYNC_MS: "0" }), /FGW_PRICES_SYNC_MS/);
});

Deno.test("with the file source, the service's prices view serves the file once the scheduler ran the job", async () => {
  await using service = await openTestService({
    env: { ...OFFLINE, FGW_PRICES_SOURCE: "file", FGW_PRICES_FILE: DEMO },
  });
  assert.deepEqual(service.prices.current(), { prices: null, syncedAtMs: null, stale: true });
  assert.ok((await service.scheduler.tick()).includes("prices-sync"));
  assert.deepEqual(service.prices.current(), {
    prices: { taoUsd: 412.5, alphaTao: 0.0095315, minerAlphaPerDay: 2952, at: "2026-11-20T12:00:00.000Z" },
    syncedAtMs: TEST_START_MS,
    stale: false,
  });
});

Deno.test("with the chain source, the service reads the fakes; when CoinGecko fails the last prices stay and one warning is logged", async () => {
  await using coingecko = startFakeCoinGecko({ taoUsd: 420 });
  await using subtensor = startFakeSubtensor();
  subtensor.setStateCall(ALPHA_PRICE_FN, 41, encodeAlphaPrice(10_000_000n));
  subtensor.setStateCall(DYNAMIC_INFO_FN, 41, encodeDynamicInfoAnswer(dynamicInfoFixture()));
  const clock = new ManualClock(TEST_START_MS);
  const lines: LogLine[] = [];
  const config = loadConfig({
    FGW_IP_RPM: "0",
    ...OFFLINE,
    FGW_COINGECKO_URL: coingecko.url,
    FGW_SUBTENSOR_URL: subtensor.url,
  });
  const service = await createService(config, {
    clock: clock.now,
    log: (line) => lines.push(line),
    storage: await openKvStorage(":memory:"),
  });
  try {
    await service.scheduler.tick();
    const synced = { taoUsd: 420, alphaTao: 0.01, minerAlphaPerDay: 2952, at: "2026-11-20T12:00:00.000Z" };
    assert.deepEqual(service.prices.current(), { prices: synced, syncedAtMs: TEST_START_MS, stale: false });

    // Every attempt answered 503 at once (Retry-After: 0), two runs in a row.
    coingecko.failNext(10, { kind: "status", status: 503, retryAfter: "0" });
    for (let run = 0; run < 2; run++) {
      clock.advance(config.FGW_PRICES_SYNC_MS);
      assert.ok((await service.scheduler.tick()).includes("prices-sync"));
    }
    assert.deepEqual(service.prices.current().prices, synced);
    const failures = lines.filter((line) =>
      line.msg === "prices source unreachable; the last prices are kept"
    );
    assert.deepEqual(failures.map((line) => line.level), ["warn", "debug"]);
    assert.match(String(failures[0]!.reason), /CoinGecko: HTTP 503 \(5 attempts\)/);
    assert.ok(!lines.some((line) => line.msg === "periodic job failed"));
    const metrics = await (await service.app.request("/metrics")).text();
    assert.match(metrics, /fgw_upstream_errors_total\{upstream="coingecko",reason="5xx"\} 10/);
  } finally {
    await service.close();
  }
});
