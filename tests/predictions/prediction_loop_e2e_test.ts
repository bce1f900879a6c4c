/**
 * Customer predictions end to end: miners' agents leased and submitted by a validator through the
 * signed HTTP loop, the scoring job run (nothing resolved yet: every score 0, so every contribution
 * weighs 1), then the forecast read with an API key and recorded by the snapshot job.
 */
import assert from "node:assert/strict";
import { isoAt } from "../../actors/kernel/mod.ts";
import { LeaseReplySchema } from "../../routes/validators/validators_api.ts";
import { adapterTest } from "../support/adapters.ts";
import { issueKey, keyInit } from "../support/access.ts";
import { runJobOnce } from "../support/jobs.ts";
import { LEASE, openLoop, signedInit, submissionFor, SUBMIT, testSigner } from "../support/validator_loop.ts";

adapterTest(
  "predictions submitted through the validator loop make the hand-computed consensus",
  async ({ storage }) => {
    const validator = testSigner("validator-0");
    const loop = await openLoop({ validators: [validator], miners: 3, events: 1, storage });
    const { service } = loop;
    await using _ = service;
    const event = loop.events[0]!;
    const [yes, no] = event.outcomes.map((outcome) => outcome.outcomeId) as [string, string];
    // Miner uids 1, 2, 3 (the validator is uid 0) say P(yes) 0.6, 0.9 and 0.3.
    const said: Record<number, number> = { 1: 0.6, 2: 0.9, 3: 0.3 };
    for (let leased = 0; leased < 3; leased++) {
      const nowMs = service.clock.now();
      const reply = await service.request(LEASE, signedInit(validator, "GET", LEASE, { nowMs }));
      const { assignment } = LeaseReplySchema.parse(await reply.json());
      assert.ok(assignment);
      const pYes = said[assignment.miner.uid]!;
      const body = JSON.stringify(submissionFor(assignment.agentPredictionId, event, {
        outcomeProbabilities: { [yes]: pYes, [no]: 1 - pYes },
      }));
      const submitted = await service.request(SUBMIT, signedInit(validator, "POST", SUBMIT, { nowMs, body }));
      assert.equal(submitted.status, 200, await submitted.text());
    }
    await runJobOnce(service.scoring.job, { leases: service.storage.jobLeases, nowMs: service.clock.now() });
    await service.catalog.view.refresh();
    const scopes = ["predictions:read", "history:read"];
    const { apiKey } = await issueKey(service.request, loop.orgId, { scopes });
    const body = await (await service.request(`/v1/predictions/${event.id}`, keyInit(apiKey))).json();
    // Every score is 0, so each weighs 1: yes = (0.6 + 0.9 + 0.3) / 3 = 0.6, no = (0.4 + 0.1 + 0.7) / 3 = 0.4.
    assert.deepEqual(body.forecast.outcomeProbabilities, { [yes]: 0.6, [no]: 0.4 });
    assert.equal(body.forecast.contributors, 3);
    assert.deepEqual(body.miners.map((m: { uid: number; weight: number }) => [m.uid, m.weight]), [[1, 1], [
      2,
      1,
    ], [3, 1]]);
    assert.equal(body.miners.some((m: object) => "outcomeProbabilities" in m), false, "withheld while open");

    const nowMs = service.clock.now();
    await runJobOnce(service.predictions.snapshotJob, { leases: service.storage.jobLeases, nowMs });
    const history = await (await service.request(`/v1/predictions/${event.id}/history`, keyInit(apiKey)))
      .json();
    assert.deepEqual(history.points, [{
      at: isoAt(nowMs),
      forecast: { [yes]: 0.6, [no]: 0.4 },
      market: event.currentOutcomePrices,
      contributors: 3,
    }]);
  },
);
