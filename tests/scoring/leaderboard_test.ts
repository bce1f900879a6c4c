import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { runJobOnce } from "../support/jobs.ts";
import { minerHotkey } from "../support/assignments.ts";
import { neuronAt } from "../support/neurons.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import {
  BASE,
  DAY,
  recordPrices,
  registerMiners,
  storeFiveResolvedEvents,
  syncMetagraph,
} from "./job_fixtures.ts";

const NOW = BASE + 3 * DAY + 60_000;
const FIRST_SEEN = BASE - 10 * DAY;
const PRICES = { taoUsd: 400, alphaTao: 0.01, minerAlphaPerDay: 2952 };

/**
 * Five events resolved together: uid 0 says 0.7 and uid 1 0.5 on each ("yes" won, market 0.4):
 * edges 0.27 and 0.11, rho 5/15, scores 0.09 and 0.036667. uid 2 never predicted; uid 3 is not a
 * forecasting miner (no organisation). Metagraph first seen 10 days before, synced again now.
 */
async function scoredWorld(storage: Storage, env: Record<string, string> = {}): Promise<TestService> {
  await storeFiveResolvedEvents(storage);
  await syncMetagraph(storage, [0, 1, 2, 3], { syncedAtMs: FIRST_SEEN });
  await syncMetagraph(storage, [0, 1, 2, 3], { syncedAtMs: NOW });
  await registerMiners(storage, "org-a", [minerHotkey(0), minerHotkey(2)]);
  await registerMiners(storage, "org-b", [minerHotkey(1)]);
  const service = await openTestService({
    storage,
    clock: new ManualClock(NOW),
    env: { FGW_FORECASTING_WEIGHT_SHARE: "0.5", ...env },
  });
  await runJobOnce(service.scoring.job, { leases: storage.jobLeases, nowMs: NOW });
  await service.metagraph.view.refresh();
  return service;
}

async function board(service: TestService, query = "") {
  const response = await service.request(`/v1/leaderboard${query}`);
  assert.equal(response.status, 200);
  return await response.json();
}

adapterTest(
  "the leaderboard shows forecasting miners with hand-checked payouts, by incentive",
  async ({ storage }) => {
    await using service = await scoredWorld(storage);
    await recordPrices(storage, PRICES, NOW);
    await service.prices.refresh();
    const body = await board(service);
    assert.deepEqual(Object.keys(body), [
      "netuid",
      "updatedAt",
      "stale",
      "prices",
      "scoringMeta",
      "count",
      "neurons",
      "window",
      "baselines",
    ]);
    assert.equal(body.netuid, 41);
    assert.equal(body.updatedAt, new Date(NOW).toISOString());
    assert.equal(body.stale, false);
    assert.deepEqual(body.prices, {
      taoUsd: 400,
      alphaTao: 0.01,
      alphaUsd: 4,
      taoPriceUpdatedAt: new Date(NOW - 1_000).toISOString(),
    });
    assert.deepEqual(body.scoringMeta, {
      windowDays: 30,
      computedAt: new Date(BASE + 3 * DAY).toISOString(),
      forecastingWeightShare: 0.5,
      minerAlphaPerDay: 2952,
      forecastingBudgetAlphaPerDay: 1476,
    });
    assert.equal(body.count, 3);
    const payouts = body.neurons.map((n: Record<string, unknown>) => [
      n.uid,
      n.forecastingIncentive,
      n.forecastingAlphaPerDay,
      n.forecastingUsdPerDay,
    ]);
    // Shares 0.27 : 0.11 of a 1476-alpha budget, at 4 USD per alpha.
    assert.deepEqual(payouts, [
      [0, 0.710526, 1048.736842, 4194.947368],
      [1, 0.289474, 427.263158, 1709.052632],
      [2, 0, 0, 0],
    ]);
    const [top, , idle] = body.neurons;
    const chain = neuronAt(0);
    assert.deepEqual(Object.keys(top), [
      ...["uid", "hotkey", "coldkey", "stake", "validatorPermit", "active", "incentive", "emission", "trust"],
      ...["consensus", "dividends", "lastUpdate", "firstSeenAt", "scoring", "forecastingIncentive"],
      ...["forecastingAlphaPerDay", "forecastingUsdPerDay", "rank", "brierInterval", "edgeInterval"],
    ]);
    assert.equal(top.hotkey, minerHotkey(0));
    assert.equal(top.stake, chain.stakeRao.toString());
    assert.equal(top.emission, Number(chain.emissionRao) / 1e9);
    assert.equal(top.lastUpdate, String(chain.lastUpdate));
    assert.equal(top.firstSeenAt, new Date(FIRST_SEEN).toISOString());
    assert.deepEqual([top.scoring.gate, top.scoring.score, top.scoring.edge], ["pass", 0.09, 0.27]);
    assert.deepEqual(Object.keys(top.scoring), [
      ...["score", "raw", "accuracy", "calibration", "edge", "brier", "weightedBrier", "roi", "preds"],
      ...["validPreds", "invalidPreds", "rho", "effN", "ageHours", "gate"],
    ]);
    assert.deepEqual([idle.scoring.gate, idle.scoring.preds, idle.scoring.ageHours], [
      "no_predictions",
      0,
      312,
    ]);
  },
);

adapterTest(
  "a page keeps the whole board's count and payouts; limit and netuid are checked",
  async ({ storage }) => {
    await using service = await scoredWorld(storage);
    await recordPrices(storage, PRICES, NOW);
    await service.prices.refresh();
    const page = await board(service, "?limit=1&netuid=41");
    assert.equal(page.count, 3);
    assert.deepEqual(page.neurons.map((n: { uid: number }) => n.uid), [0]);
    assert.equal(page.neurons[0].forecastingIncentive, 0.710526);
    for (
      const bad of ["?limit=0", "?limit=257", "?limit=1.5", "?limit=abc", "?other=1", "?limit=2&limit=3"]
    ) {
      const response = await service.request(`/v1/leaderboard${bad}`);
      assert.equal(response.status, 400, bad);
      assert.equal((await response.json()).error.code, "invalid_request");
    }
    const other = await service.request("/v1/leaderboard?netuid=42");
    assert.equal(other.status, 404);
    assert.equal((await other.json()).error.code, "not_found");
  },
);

adapterTest(
  "without prices the board is stale and pays no alpha; a stale metagraph is stale too",
  async ({ storage }) => {
    await using service = await scoredWorld(storage);
    const body = await board(service);
    assert.equal(body.stale, true);
    assert.deepEqual(body.prices, { taoUsd: null, alphaTao: null, alphaUsd: null, taoPriceUpdatedAt: null });
    assert.equal(body.scoringMeta.minerAlphaPerDay, null);
    assert.equal(body.scoringMeta.forecastingBudgetAlphaPerDay, null);
    assert.deepEqual(body.neurons[0].forecastingIncentive, 0.710526);
    assert.deepEqual([body.neurons[0].forecastingAlphaPerDay, body.neurons[0].forecastingUsdPerDay], [
      null,
      null,
    ]);
    await recordPrices(storage, PRICES, NOW);
    await service.prices.refresh();
    service.clock.advance(16 * 60_000); // past three 5-minute syncs of both
    await recordPrices(storage, PRICES, service.clock.now());
    await service.prices.refresh();
    assert.equal((await board(service)).stale, true, "the metagraph is stale");
  },
);

adapterTest("the board is served for 60 s, then rebuilt", async ({ storage }) => {
  await using service = await scoredWorld(storage);
  assert.equal((await board(service)).count, 3);
  await registerMiners(storage, "org-c", [minerHotkey(3)]);
  service.clock.advance(59_000);
  assert.equal((await board(service)).count, 3);
  service.clock.advance(1_000);
  const rebuilt = await board(service);
  assert.equal(rebuilt.count, 4);
  assert.equal(rebuilt.updatedAt, new Date(NOW + 60_000).toISOString());
});

adapterTest("FGW_LEADERBOARD_CACHE_MS sets how long the board is served", async ({ storage }) => {
  await using service = await scoredWorld(storage, { FGW_LEADERBOARD_CACHE_MS: "2000" });
  assert.equal((await board(service)).count, 3);
  await registerMiners(storage, "org-c", [minerHotkey(3)]);
  service.clock.advance(1_999);
  assert.equal((await board(service)).count, 3);
  service.clock.advance(1);
  assert.equal((await board(service)).count, 4);
});

adapterTest(
  "a uid taken by a new hotkey is a new miner on the board; a deregistered hotkey is gone",
  async ({ storage }) => {
    await using service = await scoredWorld(storage);
    const later = NOW + 60_000;
    service.clock.set(later);
    await registerMiners(storage, "org-c", ["5NewOwnerOfUid0"]);
    await syncMetagraph(storage, [0, 1, 2], { syncedAtMs: later, hotkeys: { 0: "5NewOwnerOfUid0" } });
    await service.metagraph.view.refresh();
    const body = await board(service);
    const rows = body.neurons.map((n: { uid: number; hotkey: string; scoring: { preds: number } }) => [
      n.uid,
      n.hotkey,
      n.scoring.preds,
    ]);
    // The table predates the new pair: its row is the empty one (ageHours 0 until the next run).
    assert.deepEqual(rows, [[1, minerHotkey(1), 5], [0, "5NewOwnerOfUid0", 0], [2, minerHotkey(2), 0]]);
    assert.equal(body.neurons[0].forecastingIncentive, 1);
    assert.equal(body.neurons[1].scoring.ageHours, 0); // first seen 2 minutes after computedAt: never negative
    await runJobOnce(service.scoring.job, { leases: storage.jobLeases, nowMs: later + 5 * 60_000 });
    service.clock.advance(5 * 60_000);
    const next = await board(service);
    assert.equal(next.neurons.find((n: { uid: number }) => n.uid === 0).scoring.ageHours, 0.05); // 3 minutes
  },
);
