/**
 * Fresh runs through the real validator loop (signed HTTP lease and submit): a customer's fresh run
 * on an event makes the next leases return that event's new round, one per miner, before any
 * ordinary work; a second request within the hour queues nothing new; a fresh run's prediction is
 * submitted like any other.
 */
import assert from "node:assert/strict";
import { agentPredictionId } from "../../storage/assignment_record.ts";
import { LeaseReplySchema } from "../../routes/validators/validators_api.ts";
import { adapterTest } from "../support/adapters.ts";
import type { TestService } from "../support/test_service.ts";
import { LEASE, openLoop, signedInit, submissionFor, SUBMIT, testSigner } from "../support/validator_loop.ts";
import { createOrg, issueKey } from "../support/access.ts";

const VALIDATOR = testSigner("fresh-lease-validator");

async function lease(service: TestService) {
  const response = await service.request(
    LEASE,
    signedInit(VALIDATOR, "GET", LEASE, { nowMs: service.clock.now() }),
  );
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  const { assignment } = LeaseReplySchema.parse(body);
  assert.ok(assignment, "something to lease");
  return assignment;
}

/** `POST /v1/predictions/query` with `requestFresh` for one event; its item's `freshRun`. */
async function requestFresh(service: TestService, apiKey: string, eventId: string): Promise<unknown> {
  const response = await service.request("/v1/predictions/query", {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ eventIds: [eventId], requestFresh: true }),
  });
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  assert.equal(body.items.length, 1);
  return body.items[0].freshRun;
}

adapterTest(
  "requestFresh: the next leases return the event's new round first; a second request queues nothing new",
  async (adapter) => {
    const loop = await openLoop({ validators: [VALIDATOR], miners: 3, events: 5, storage: adapter.storage });
    const service = loop.service;
    try {
      const miners = loop.source.current.neurons.filter((neuron) => !neuron.validatorPermit);
      const versions = new Map<string, string>();
      for (const miner of miners) {
        versions.set(miner.hotkey, (await service.storage.agents.minerState(miner.hotkey))!.currentVersionId);
      }
      const soonest = loop.events[0]!;
      const latest = loop.events.at(-1)!;

      const ordinary = await lease(service);
      assert.equal(ordinary.event.id, soonest.id, "ordinary work: the soonest-ending event first");

      const customer = await createOrg(service.request, "Customer");
      const { apiKey } = await issueKey(service.request, customer, { scopes: ["predictions:write"] });
      assert.deepEqual(await requestFresh(service, apiKey, latest.id), { status: "queued", round: 1 });

      const fresh = [await lease(service), await lease(service), await lease(service)];
      assert.deepEqual(
        fresh.map((a) => a.event.id),
        [latest.id, latest.id, latest.id],
        "the fresh round first",
      );
      assert.deepEqual(
        fresh.map((a) => a.miner.hotkey).toSorted(),
        miners.map((m) => m.hotkey).toSorted(),
        "one per miner",
      );
      for (const a of fresh) {
        const agentVersionId = versions.get(a.miner.hotkey)!;
        assert.equal(a.agent.versionId, agentVersionId, "the miner's newest agent version");
        assert.equal(
          a.agentPredictionId,
          agentPredictionId({ agentVersionId, eventId: latest.id, round: 1 }),
        );
      }
      const next = await lease(service);
      assert.notEqual(
        next.agentPredictionId,
        agentPredictionId({
          agentVersionId: versions.get(next.miner.hotkey)!,
          eventId: next.event.id,
          round: 1,
        }),
      );
      assert.equal(next.event.id, soonest.id, "then ordinary work again");

      assert.deepEqual(await requestFresh(service, apiKey, latest.id), {
        status: "already_queued",
        round: 1,
      });
      assert.equal(await service.storage.assignments.latestRound(latest.id), 1, "no new round");
      const after = await lease(service);
      assert.equal(after.event.id, soonest.id, "nothing fresh left to lease");

      const body = JSON.stringify(submissionFor(fresh[0]!.agentPredictionId, latest));
      const submitted = await service.request(
        SUBMIT,
        signedInit(VALIDATOR, "POST", SUBMIT, { nowMs: service.clock.now(), body }),
      );
      assert.equal(submitted.status, 200, await submitted.text());
      const prediction = await service.storage.assignments.getPrediction(fresh[0]!.agentPredictionId);
      assert.equal(
        prediction?.round,
        1,
        "a fresh run's prediction is stored like the others, with its round",
      );
    } finally {
      await service.close();
    }
  },
);
