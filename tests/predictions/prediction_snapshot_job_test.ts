import assert from "node:assert/strict";
import { isoAt } from "../../actors/kernel/mod.ts";
import type { ForecastPoint } from "../../storage/forecast_history_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { keyInit } from "../support/access.ts";
import { runJobOnce } from "../support/jobs.ts";
import { DAY, HOUR, NOW, OPEN_ID, predictionWorld, RESOLVED_ID } from "./prediction_world.ts";
import type { TestService } from "../support/test_service.ts";

const YES = `${OPEN_ID}-yes`;
const NO = `${OPEN_ID}-no`;
/** The open event's consensus (prediction_routes_test.ts works it out) and market prices. */
const FORECAST = { [YES]: 0.655262, [NO]: 0.344738 };
const MARKET = { [YES]: 0.4, [NO]: 0.6 };

function snapshot(service: TestService, nowMs: number) {
  return runJobOnce(service.predictions.snapshotJob, { leases: service.storage.jobLeases, nowMs });
}

async function history(service: TestService, apiKey: string, query: string) {
  const response = await service.request(`/v1/predictions/${OPEN_ID}/history?${query}`, keyInit(apiKey));
  assert.equal(response.status, 200);
  return await response.json();
}

adapterTest(
  "the snapshot job records each live event once per hour; history serves the points",
  async ({ storage }) => {
    const { service, keys } = await predictionWorld(storage);
    await using _ = service;
    await snapshot(service, NOW);
    await snapshot(service, NOW + 10 * 60_000); // the same hour: nothing new
    const range = { fromMs: NOW - DAY, toMs: NOW + DAY };
    const point = { eventId: OPEN_ID, atMs: NOW, forecast: FORECAST, contributors: 2, market: MARKET };
    assert.deepEqual(await storage.forecastHistory.listPoints(OPEN_ID, range), [point]);
    assert.deepEqual(
      await storage.forecastHistory.listPoints(RESOLVED_ID, range),
      [],
      "a resolved event is not live",
    );
    service.clock.set(NOW + HOUR);
    await snapshot(service, NOW + HOUR);
    const body = await history(service, keys.history, "interval=1h");
    const served = { forecast: FORECAST, market: MARKET, contributors: 2 };
    assert.deepEqual(body, {
      eventId: OPEN_ID,
      interval: "1h",
      points: [{ at: isoAt(NOW), ...served }, { at: isoAt(NOW + HOUR), ...served }],
    });
  },
);

adapterTest(
  "a snapshot of chosen events fills their hour when its point had no forecast, and records only live ones",
  async ({ storage }) => {
    const { service } = await predictionWorld(storage);
    await using _ = service;
    const job = service.predictions.snapshotJob;
    const hourStart = Math.floor(NOW / HOUR) * HOUR;
    const empty = { eventId: OPEN_ID, atMs: hourStart, forecast: null, contributors: 0, market: MARKET };
    await storage.forecastHistory.putPoints([empty]); // a run before any prediction counted
    assert.equal(await job.snapshotEvents([OPEN_ID, RESOLVED_ID, "polymarket-404"], NOW), 1);
    assert.equal(await job.snapshotEvents([OPEN_ID], NOW + 60_000), 0, "the hour has a forecast now");
    const range = { fromMs: NOW - DAY, toMs: NOW + DAY };
    assert.deepEqual(await storage.forecastHistory.listPoints(OPEN_ID, range), [
      { eventId: OPEN_ID, atMs: NOW, forecast: FORECAST, contributors: 2, market: MARKET },
    ]);
    assert.deepEqual(await storage.forecastHistory.listPoints(RESOLVED_ID, range), [], "not live");
  },
);

adapterTest("interval=1d serves the last point of each UTC day, oldest first", async ({ storage }) => {
  const { service, keys } = await predictionWorld(storage);
  await using _ = service;
  const day = Date.UTC(2026, 10, 10);
  const at = (ms: number, pYes: number, contributors = 1): ForecastPoint => ({
    eventId: OPEN_ID,
    atMs: ms,
    forecast: { [YES]: pYes, [NO]: Math.round((1 - pYes) * 1e6) / 1e6 },
    contributors,
    market: MARKET,
  });
  await storage.forecastHistory.putPoints([
    at(day + HOUR, 0.1),
    at(day + 23 * HOUR + 59 * 60_000, 0.2),
    at(day + DAY, 0.3),
    at(day + DAY + 5 * HOUR, 0.4, 3),
    { ...at(day + 3 * DAY, 0), forecast: null, contributors: 0 },
  ]);
  const query = `interval=1d&from=${isoAt(day)}&to=${isoAt(day + 10 * DAY)}`;
  const body = await history(service, keys.history, query);
  assert.deepEqual(body.points, [
    {
      at: isoAt(day + 23 * HOUR + 59 * 60_000),
      forecast: { [YES]: 0.2, [NO]: 0.8 },
      market: MARKET,
      contributors: 1,
    },
    { at: isoAt(day + DAY + 5 * HOUR), forecast: { [YES]: 0.4, [NO]: 0.6 }, market: MARKET, contributors: 3 },
    { at: isoAt(day + 3 * DAY), forecast: null, market: MARKET, contributors: 0 },
  ]);
  const hourly = await history(
    service,
    keys.history,
    `interval=1h&from=${isoAt(day)}&to=${isoAt(day + DAY - 1)}`,
  );
  assert.deepEqual(hourly.points.map((p: { at: string }) => p.at), [
    isoAt(day + HOUR),
    isoAt(day + 23 * HOUR + 59 * 60_000),
  ]);
});

adapterTest(
  "history defaults to the last 7 days, and the job purges points past the retention",
  async ({ storage }) => {
    const { service, keys } = await predictionWorld(storage, { env: { FGW_PREDICTION_HISTORY_DAYS: "7" } });
    await using _ = service;
    const point = (atMs: number): ForecastPoint => ({
      eventId: OPEN_ID,
      atMs,
      forecast: FORECAST,
      contributors: 2,
      market: MARKET,
    });
    await storage.forecastHistory.putPoints([point(NOW - 8 * DAY), point(NOW - 6 * DAY)]);
    assert.deepEqual((await history(service, keys.history, "")).points.map((p: { at: string }) => p.at), [
      isoAt(NOW - 6 * DAY),
    ]);
    await snapshot(service, NOW);
    const all = await storage.forecastHistory.listPoints(OPEN_ID, { fromMs: 0, toMs: NOW + DAY });
    assert.deepEqual(all.map((p) => p.atMs), [NOW - 6 * DAY, NOW], "the 8-day-old point is purged");
  },
);

adapterTest(
  "the next snapshot comes a few seconds into the next UTC hour, or within a minute when nothing was live",
  async ({ storage }) => {
    const { service } = await predictionWorld(storage);
    await using _ = service;
    const job = service.predictions.snapshotJob;
    const hourStart = Math.floor(NOW / HOUR) * HOUR;
    service.clock.set(hourStart + 10 * 60_000 + 2_000); // the run ended 10 min 2 s into the hour
    await snapshot(service, hourStart + 10 * 60_000);
    assert.equal(job.intervalMs(), 50 * 60_000 - 2_000 + 5_000, "aligned to the next hour, not drifting");
    const later = NOW + 400 * HOUR; // every event has ended: nothing live
    service.clock.set(later);
    await snapshot(service, later);
    assert.ok(job.intervalMs() <= 60_000, `retried within a minute (${job.intervalMs()} ms)`);
  },
);
