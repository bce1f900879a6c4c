import assert from "node:assert/strict";
import { isoAt } from "../../actors/kernel/mod.ts";
import { adapterTest } from "../support/adapters.ts";
import { errorCode, keyInit } from "../support/access.ts";
import { minerHotkey } from "../support/assignments.ts";
import {
  BASE,
  DAY,
  HOUR,
  OPEN_ID,
  postJson,
  predictionWorld,
  RESOLVED_ID,
  SCORE_0,
  SCORE_1,
} from "./prediction_world.ts";

/** The LLM usage of a miner row whose run made no LLM call. */
const NO_LLM_CALLS = { llmCalls: 0, llmCostMicro: "0" };

adapterTest(
  "GET /v1/predictions/{eventId} serves the hand-computed consensus of an open event",
  async ({ storage }) => {
    const { service, open, keys } = await predictionWorld(storage);
    await using _ = service;
    const response = await service.request(`/v1/predictions/${OPEN_ID}`, keyInit(keys.read));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-ratelimit-limit"), "60");
    assert.equal(response.headers.get("x-ratelimit-remaining"), "59");
    // uid 0: latest valid 0.8 (0.2 superseded); uid 1: 0.3 (its later prediction is invalid); uid 3
    // is no forecasting miner; uid 2 has no prediction. yes = (0.09·0.8 + 0.036667·0.3) / 0.126667
    // = 0.0830001 / 0.126667 = 0.655262; no = (0.09·0.2 + 0.036667·0.7) / 0.126667 = 0.344738.
    assert.deepEqual(await response.json(), {
      eventId: OPEN_ID,
      question: open.question,
      outcomes: open.outcomes,
      resolution: open.resolution,
      market: { outcomePrices: { [`${OPEN_ID}-yes`]: 0.4, [`${OPEN_ID}-no`]: 0.6 }, at: isoAt(BASE) },
      forecast: {
        outcomeProbabilities: { [`${OPEN_ID}-yes`]: 0.655262, [`${OPEN_ID}-no`]: 0.344738 },
        contributors: 2,
        method: "score_weighted_mean_v1",
        // The score table's computedAt (the scoring run's interval start) is later than any predictedAt.
        updatedAt: isoAt(BASE + 3 * DAY),
      },
      miners: [
        {
          uid: 0,
          hotkey: minerHotkey(0),
          weight: SCORE_0,
          predictedAt: isoAt(BASE + 2 * HOUR),
          ...NO_LLM_CALLS,
        },
        { uid: 1, hotkey: minerHotkey(1), weight: SCORE_1, predictedAt: isoAt(BASE + HOUR), ...NO_LLM_CALLS },
      ],
    });
  },
);

adapterTest("a resolved event's miner rows show their probabilities", async ({ storage }) => {
  const { service, keys } = await predictionWorld(storage);
  await using _ = service;
  const body = await (await service.request(`/v1/predictions/${RESOLVED_ID}`, keyInit(keys.read))).json();
  const [yes, no] = [`${RESOLVED_ID}-yes`, `${RESOLVED_ID}-no`];
  assert.equal(body.resolution.resolutionStatus, "resolved");
  // yes = (0.09·0.7 + 0.036667·0.5) / 0.126667 = 0.0813335 / 0.126667 = 0.642105.
  assert.deepEqual(body.forecast.outcomeProbabilities, { [yes]: 0.642105, [no]: 0.357895 });
  assert.deepEqual(body.miners, [
    {
      uid: 0,
      hotkey: minerHotkey(0),
      weight: SCORE_0,
      predictedAt: isoAt(BASE + HOUR),
      outcomeProbabilities: { [yes]: 0.7, [no]: 0.3 },
      ...NO_LLM_CALLS,
    },
    {
      uid: 1,
      hotkey: minerHotkey(1),
      weight: SCORE_1,
      predictedAt: isoAt(BASE + HOUR),
      outcomeProbabilities: { [yes]: 0.5, [no]: 0.5 },
      ...NO_LLM_CALLS,
    },
  ]);
});

adapterTest(
  "POST /v1/predictions/query answers items in the order asked and the missing ids",
  async ({ storage }) => {
    const { service, keys } = await predictionWorld(storage);
    await using _ = service;
    const asked = ["polymarket-404", RESOLVED_ID, OPEN_ID, "polymarket-3", "polymarket-405"];
    const response = await service.request(
      "/v1/predictions/query",
      postJson(keys.write, { eventIds: asked }),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-ratelimit-remaining"), "59");
    const body = await response.json();
    assert.deepEqual(body.items.map((item: { eventId: string }) => item.eventId), [
      RESOLVED_ID,
      OPEN_ID,
      "polymarket-3",
    ]);
    assert.deepEqual(body.missing, ["polymarket-404", "polymarket-405"]);
    const single = await (await service.request(`/v1/predictions/${OPEN_ID}`, keyInit(keys.read))).json();
    assert.deepEqual(body.items[1], single, "the same shape as the single read, no freshRun");
  },
);

adapterTest("unknown and malformed event ids answer 404 not_found", async ({ storage }) => {
  const { service, keys } = await predictionWorld(storage);
  await using _ = service;
  for (const path of ["/v1/predictions/polymarket-404", "/v1/predictions/%00bad", "/v1/predictions/-x"]) {
    const response = await service.request(path, keyInit(keys.read));
    assert.equal(response.status, 404, path);
    assert.equal(await errorCode(response), "not_found");
  }
  const history = await service.request("/v1/predictions/polymarket-404/history", keyInit(keys.history));
  assert.equal(history.status, 404);
  assert.equal(await errorCode(history), "not_found");
});
