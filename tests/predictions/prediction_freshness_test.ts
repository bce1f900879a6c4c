/**
 * docs/predictions.md "Freshness": a rendered prediction is served from memory until the change
 * poll learns that its event got a new prediction; then the next read shows it.
 */
import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { keyInit } from "../support/access.ts";
import { storePredictions } from "../scoring/job_fixtures.ts";
import { NOW, OPEN_ID, postJson, predictionWorld } from "./prediction_world.ts";

adapterTest(
  "a new prediction shows after the next change poll, on the single read and the query",
  async ({ storage }) => {
    const { service, open, keys } = await predictionWorld(storage);
    await using _ = service;
    const yesOf = async () => {
      const one = await (await service.request(`/v1/predictions/${OPEN_ID}`, keyInit(keys.read))).json();
      const query = await (await service.request(
        "/v1/predictions/query",
        postJson(keys.write, { eventIds: [OPEN_ID] }),
      )).json();
      assert.deepEqual(query.items[0], one, "the query's item is the single read's answer");
      return one.forecast.outcomeProbabilities[`${OPEN_ID}-yes`];
    };
    assert.equal(await yesOf(), 0.655262);
    // uid 0 (score 0.09) now says 0.1 (uid 1, score 0.036667, still 0.3):
    // yes = (0.09·0.1 + 0.036667·0.3) / 0.126667 = 0.157895.
    await storePredictions(storage, [open], [{
      event: open,
      uid: 0,
      pYes: 0.1,
      receivedAtMs: NOW,
      round: 2,
    }]);
    assert.equal(await yesOf(), 0.655262, "served from memory until the poll");
    assert.ok(await service.predictions.reader.pollChanges() >= 1, "the poll names the event");
    assert.equal(await yesOf(), 0.157895);
  },
);
