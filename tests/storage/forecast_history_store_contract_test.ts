import assert from "node:assert/strict";
import type { ForecastPoint } from "../../storage/forecast_history_store.ts";
import { adapterTest } from "../support/adapters.ts";

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 20, 0);

function point(eventId: string, atMs: number, pYes = 0.6): ForecastPoint {
  return {
    eventId,
    atMs,
    forecast: { yes: pYes, no: Math.round((1 - pYes) * 1e6) / 1e6 },
    contributors: 2,
    market: { yes: 0.4, no: 0.6 },
  };
}

adapterTest("a point is stored once per event and UTC hour; a re-run writes nothing", async ({ storage }) => {
  const history = storage.forecastHistory;
  const first = [point("ev-1", T0 + 5 * 60_000), point("ev-2", T0 + 5 * 60_000), point("ev-1", T0 + HOUR)];
  assert.equal(await history.putPoints(first), 3);
  assert.equal(await history.putPoints(first), 0, "the same points again");
  assert.equal(await history.putPoints([point("ev-1", T0 + 50 * 60_000, 0.9)]), 0, "same hour, later");
  assert.deepEqual(await history.listPoints("ev-1", { fromMs: T0, toMs: T0 + 2 * HOUR }), [
    point("ev-1", T0 + 5 * 60_000),
    point("ev-1", T0 + HOUR),
  ]);
});

adapterTest(
  "a point without a forecast is replaced by the hour's first later point with one, which then stays",
  async ({ storage }) => {
    const history = storage.forecastHistory;
    const empty = (atMs: number): ForecastPoint => ({
      ...point("ev-1", atMs),
      forecast: null,
      contributors: 0,
    });
    assert.equal(await history.putPoints([empty(T0 + 5 * 60_000), point("ev-2", T0)]), 2);
    assert.equal(await history.putPoints([empty(T0 + 10 * 60_000)]), 0, "empty does not replace empty");
    assert.equal(await history.putPoints([point("ev-1", T0 + 20 * 60_000, 0.7)]), 1, "it fills the hour");
    assert.equal(await history.putPoints([point("ev-1", T0 + 30 * 60_000, 0.9)]), 0, "a forecast stays");
    assert.equal(await history.putPoints([empty(T0 + 40 * 60_000)]), 0);
    assert.equal(await history.putPoints([point("ev-2", T0 + 50 * 60_000, 0.9)]), 0, "ev-2 had a forecast");
    assert.deepEqual(await history.listPoints("ev-1", { fromMs: T0, toMs: T0 + HOUR }), [
      point("ev-1", T0 + 20 * 60_000, 0.7),
    ]);
    assert.equal(await history.purgeBefore(T0 + 20 * 60_000), 1, "only ev-2's: the replaced point is gone");
    assert.equal(await history.purgeBefore(T0 + 20 * 60_000 + 1), 1, "the replacing point, by its own time");
    assert.deepEqual(await history.listPoints("ev-1", { fromMs: 0, toMs: T0 + HOUR }), []);
  },
);

adapterTest(
  "a batch with several points of one hour keeps what storing them in turn keeps",
  async ({ storage }) => {
    const history = storage.forecastHistory;
    const empty = (atMs: number): ForecastPoint => ({
      ...point("ev-1", atMs),
      forecast: null,
      contributors: 0,
    });
    const batch = [empty(T0), point("ev-1", T0 + 1, 0.7), point("ev-1", T0 + 2, 0.9), empty(T0 + HOUR)];
    assert.equal(await history.putPoints(batch), 2);
    assert.deepEqual(await history.listPoints("ev-1", { fromMs: 0, toMs: T0 + 2 * HOUR }), [
      point("ev-1", T0 + 1, 0.7),
      empty(T0 + HOUR),
    ]);
  },
);

adapterTest(
  "points are listed oldest first within [from, to] and keep a null forecast",
  async ({ storage }) => {
    const history = storage.forecastHistory;
    const none: ForecastPoint = { ...point("ev-1", T0 + 3 * HOUR), forecast: null, contributors: 0 };
    await history.putPoints([point("ev-1", T0 + 2 * HOUR + 1), none, point("ev-1", T0), point("ev-9", T0)]);
    const range = { fromMs: T0 + HOUR, toMs: T0 + 3 * HOUR };
    assert.deepEqual(await history.listPoints("ev-1", range), [point("ev-1", T0 + 2 * HOUR + 1), none]);
    assert.deepEqual(await history.listPoints("ev-1", { fromMs: T0 + 1, toMs: T0 + 2 * HOUR }), []);
    assert.deepEqual(await history.listPoints("ev-1", { fromMs: T0, toMs: T0 }), [point("ev-1", T0)]);
    assert.deepEqual(await history.listPoints("ev-404", range), []);
  },
);

adapterTest("a purge deletes the points taken before the cutoff, and only them", async ({ storage }) => {
  const history = storage.forecastHistory;
  await history.putPoints([point("ev-1", T0), point("ev-2", T0 + 10), point("ev-1", T0 + HOUR)]);
  assert.equal(await history.purgeBefore(T0 + 11), 2);
  assert.equal(await history.purgeBefore(T0 + 11), 0);
  assert.deepEqual(await history.listPoints("ev-1", { fromMs: 0, toMs: T0 + 2 * HOUR }), [
    point("ev-1", T0 + HOUR),
  ]);
  assert.equal(await history.putPoints([point("ev-1", T0 + 20)]), 1, "its hour is free again");
});

adapterTest("a purge of more points than one page deletes them all", async ({ storage }) => {
  const history = storage.forecastHistory;
  const old = Array.from({ length: 1_203 }, (_, i) => point(`ev-${i}`, T0 + i));
  assert.equal(await history.putPoints(old), 1_203);
  await history.putPoints([point("ev-keep", T0 + 2 * HOUR)]);
  assert.equal(await history.purgeBefore(T0 + HOUR), 1_203);
  assert.deepEqual(await history.listPoints("ev-0", { fromMs: 0, toMs: T0 + HOUR }), []);
  assert.equal((await history.listPoints("ev-keep", { fromMs: 0, toMs: T0 + 3 * HOUR })).length, 1);
});
