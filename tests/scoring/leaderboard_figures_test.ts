import assert from "node:assert/strict";
import { isoAt } from "../../actors/kernel/mod.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { BOARD_CSV_FIELDS } from "../../routes/scoring/leaderboard_columns.ts";
import { adapterTest } from "../support/adapters.ts";
import { minerHotkey } from "../support/assignments.ts";
import { boardWorld, COMPUTED_AT, NOW } from "./board_world.ts";
import { DAY } from "./job_fixtures.ts";
import type { TestService } from "../support/test_service.ts";

async function board(service: TestService, query = "") {
  const response = await service.request(`/v1/leaderboard${query}`);
  assert.equal(response.status, 200, query);
  return await response.json();
}

const uids = (body: { neurons: { uid: number }[] }) => body.neurons.map((n) => n.uid);

adapterTest(
  "each miner's row has the 95 % intervals of its mean Brier and mean edge; the baselines are scored like miners",
  async ({ storage }) => {
    await using service = await boardWorld(storage);
    const body = await board(service);
    const [first, second, idle] = body.neurons;
    assert.deepEqual([first.uid, first.rank, second.uid, second.rank, idle.uid, idle.rank], [
      0,
      1,
      1,
      2,
      2,
      3,
    ]);
    // Briers 0.01 … 0.25: mean 0.11 ± 0.084757; edges 0.36 − Brier: mean 0.25, the same half-width.
    assert.equal(first.scoring.brier, 0.11);
    assert.deepEqual(first.brierInterval, { mean: 0.11, low: 0.025243, high: 0.194757, n: 5 });
    assert.deepEqual(first.edgeInterval, { mean: 0.25, low: 0.165243, high: 0.334757, n: 5 });
    assert.deepEqual(second.brierInterval, { mean: 0.25, low: 0.25, high: 0.25, n: 5 });
    assert.deepEqual(second.edgeInterval, { mean: 0.11, low: 0.11, high: 0.11, n: 5 });
    assert.deepEqual([idle.brierInterval, idle.edgeInterval], [null, null]);
    assert.deepEqual(body.window, {
      from: isoAt(COMPUTED_AT - 30 * DAY),
      to: isoAt(COMPUTED_AT),
      scoredEvents: 5,
      countedPredictions: 10,
      lastRunAt: isoAt(COMPUTED_AT),
    });
    // The market at admission says 0.4 on the winner of every event: Brier 0.36, never called,
    // calibration 1 − |0.6 − 0|. The consensus has a forecast on 3 events (0.8 on the winner).
    assert.deepEqual(body.baselines, [
      {
        name: "market",
        events: 5,
        preds: 5,
        validPreds: 5,
        invalidPreds: 0,
        brier: 0.36,
        brierInterval: { mean: 0.36, low: 0.36, high: 0.36, n: 5 },
        weightedBrier: 0.36,
        accuracy: 0,
        calibration: 0.4,
      },
      {
        name: "consensus",
        events: 5,
        preds: 3,
        validPreds: 3,
        invalidPreds: 0,
        brier: 0.04,
        brierInterval: null,
        weightedBrier: 0.04,
        accuracy: 1,
        calibration: 0.8,
      },
    ]);
  },
);

Deno.test("a baseline without a valid prediction has null figures in JSON and empty ones in the CSV, not 0", async () => {
  await using service = await boardWorld(await openKvStorage(":memory:"), { history: false });
  const consensus = (await board(service)).baselines[1];
  assert.deepEqual(consensus, {
    name: "consensus",
    events: 5,
    preds: 0,
    validPreds: 0,
    invalidPreds: 0,
    brier: null,
    brierInterval: null,
    weightedBrier: null,
    accuracy: null,
    calibration: null,
  });
  const csv = (await (await service.request("/v1/leaderboard?format=csv")).text()).split("\r\n");
  const row = csv[2]!.split(",");
  const field = (name: string) => row[BOARD_CSV_FIELDS.indexOf(name)];
  assert.deepEqual(
    ["hotkey", "brier", "calibration", "validPreds"].map(field),
    ["consensus", "", "", "0"],
  );
  // The market baseline and the miners keep their figures.
  assert.equal((await board(service)).baselines[0].brier, 0.36);
});

Deno.test("sort and order list the board by a column, ties and miners without a figure last", async () => {
  await using service = await boardWorld(await openKvStorage(":memory:"));
  assert.deepEqual(uids(await board(service)), [0, 1, 2]);
  assert.deepEqual(uids(await board(service, "?sort=uid&order=desc")), [2, 1, 0]);
  // Brier is best-first ascending by default; uid 2 has no valid prediction, so it is last either way.
  assert.deepEqual(uids(await board(service, "?sort=brier")), [0, 1, 2]);
  assert.deepEqual(uids(await board(service, "?sort=brier&order=desc")), [1, 0, 2]);
  assert.deepEqual(uids(await board(service, "?sort=gate&order=desc")), [2, 0, 1]);
  assert.deepEqual(uids(await board(service, "?sort=score&order=asc&limit=2")), [2, 1]);
  const sorted = await board(service, "?sort=uid&order=desc");
  assert.equal(sorted.count, 3);
  assert.equal(sorted.baselines.length, 2);
});

Deno.test("a bad sort, order or format is a 400 naming the field", async () => {
  await using service = await boardWorld(await openKvStorage(":memory:"));
  for (const [query, field] of [["?sort=stake", "sort"], ["?order=up", "order"], ["?format=xml", "format"]]) {
    const response = await service.request(`/v1/leaderboard${query}`);
    assert.equal(response.status, 400, query);
    const error = (await response.json()).error;
    assert.equal(error.code, "invalid_request");
    assert.deepEqual(error.details.fields.map((f: { field: string }) => f.field), [field], query);
  }
});

Deno.test("format=csv gives the same view as CSV: the page's columns, baselines first, the view's rows in order", async () => {
  await using service = await boardWorld(await openKvStorage(":memory:"));
  const response = await service.request("/v1/leaderboard?sort=uid&order=desc&format=csv");
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/csv/);
  const lines = (await response.text()).trimEnd().split("\r\n").map((line) => line.split(","));
  assert.deepEqual(lines[0], [...BOARD_CSV_FIELDS]);
  assert.deepEqual(lines[0]!.slice(0, 8), [
    "rank",
    "uid",
    "hotkey",
    "score",
    "brier",
    "brierLow",
    "brierHigh",
    "edge",
  ]);
  const column = (name: string) => lines.slice(1).map((line) => line[BOARD_CSV_FIELDS.indexOf(name)]);
  assert.deepEqual(column("rank"), ["baseline", "baseline", "3", "2", "1"]);
  assert.deepEqual(column("hotkey"), ["market", "consensus", minerHotkey(2), minerHotkey(1), minerHotkey(0)]);
  assert.deepEqual(column("brierLow"), ["0.36", "", "", "0.25", "0.025243"]);
  assert.deepEqual(column("gate"), ["", "", "no_predictions", "pass", "pass"]);
  const json = await board(service, "?sort=uid&order=desc");
  assert.deepEqual(
    column("forecastingIncentive").slice(2),
    json.neurons.map((n: { forecastingIncentive: number }) => String(n.forecastingIncentive)),
  );
});

Deno.test("GET /v1/overview gives the home page's figures from the catalog and the leaderboard", async () => {
  await using service = await boardWorld(await openKvStorage(":memory:"));
  const response = await service.request("/v1/overview");
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), {
    updatedAt: isoAt(NOW),
    eventsLive: 1,
    miners: 3,
    minersScored: 2,
    predictionsInWindow: 10,
    scoredEventsInWindow: 5,
    windowDays: 30,
    lastScoringRun: isoAt(COMPUTED_AT),
    stale: false,
  });
  const refused = await service.request("/v1/overview?x=1");
  assert.equal(refused.status, 400);
});
