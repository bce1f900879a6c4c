/**
 * A leased agent run's LLM calls, end to end through the HTTP routes: a validator leases a miner's
 * agent, makes the agent's calls on `POST /v1/gateway/validator/completions` naming the lease
 * (billed to the miner's organisation: balance, ledger, usage record naming the lease), submits
 * the prediction, one call settling only after the submission; once the event resolves and is
 * scored, the scored-prediction row, the scored event's miner row and the customer prediction's
 * miner row show both calls (`llmCalls`, `llmCostMicro`), from the service's usage records.
 */
import assert from "node:assert/strict";
import { ScoredEventPage } from "../../routes/scoring/scored_events_api.ts";
import { ScoredPredictionPage } from "../../routes/scoring/scored_predictions_api.ts";
import { addCredits, issueKey, keyInit } from "../support/access.ts";
import { CustomerPredictionSchema } from "../../routes/predictions/predictions_api.ts";
import { adapterTest } from "../support/adapters.ts";
import { waitMs } from "../support/assignments.ts";
import { putEvents, resolved } from "../support/events.ts";
import { FakeOpenAi } from "../support/fake_openai.ts";
import { runJobOnce } from "../support/jobs.ts";
import { allLedgerEntries } from "../support/ledger.ts";
import { leaseAs, type Loop, openLoop, signedInit, submitAs, testSigner } from "../support/validator_loop.ts";
import { FAKE_CALL, FAKE_KEY_ENV, providersFor, usageOf } from "./gateway_service.ts";

const VALIDATOR = testSigner("validator-0");
const MINER = testSigner("miner-0");
const PATH = "/v1/gateway/validator/completions";
const FEED = "/v1/validators/scored-predictions";
const CREDIT = 1_000_000n;

function complete(loop: Loop, agentPredictionId: string): Promise<Response> {
  const init = signedInit(VALIDATOR, "POST", PATH, {
    nowMs: loop.service.clock.now(),
    body: JSON.stringify({ ...FAKE_CALL, agentPredictionId }),
    minerHotkey: MINER.hotkey,
  });
  return loop.service.request(PATH, init);
}

/** The charge of a 200 completion. */
async function chargedOf(response: Response): Promise<bigint> {
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  return BigInt(body.costMicro);
}

adapterTest(
  "a leased run's LLM calls are billed to the miner's org, name the lease, and show on its scored rows, a call settled after the submission included",
  async (adapter) => {
    await using fake = new FakeOpenAi();
    const providersFile = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.writeTextFile(providersFile, JSON.stringify(providersFor(fake, 10_000)));
    const loop = await openLoop({
      validators: [VALIDATOR],
      miners: [MINER],
      events: 1,
      env: { FGW_PROVIDERS_FILE: providersFile },
      storage: adapter.storage,
      providerEnv: FAKE_KEY_ENV,
    });
    try {
      const { service } = loop;
      await addCredits(service.request, loop.orgId, String(CREDIT), "miner-org");
      const work = await leaseAs(service, VALIDATOR);
      const first = await chargedOf(await complete(loop, work.agentPredictionId));

      // Billed to the miner's org: the balance, a debit, a usage record naming the validator and the lease.
      const { billing } = service.storage;
      assert.equal((await billing.getAccount(loop.orgId))?.balanceMicro, CREDIT - first);
      const debits = (await allLedgerEntries(billing, loop.orgId)).filter((e) => e.kind === "debit");
      assert.deepEqual(debits.map((d) => -d.amountMicro), [first]);
      const [usage] = await usageOf(service.request, loop.orgId);
      assert.equal(usage?.minerHotkey, MINER.hotkey);
      assert.deepEqual(
        [usage?.metadata as Record<string, unknown>].map((m) => [m.validatorHotkey, m.agentPredictionId]),
        [[VALIDATOR.hotkey, work.agentPredictionId]],
      );

      // A second call reaches the provider, the run is submitted, then the call's answer comes.
      fake.respondNext("held");
      const late = complete(loop, work.agentPredictionId);
      while (fake.requests.length < 2) await waitMs(5);
      assert.equal(await submitAs(service, VALIDATOR, work), 200);
      assert.equal(fake.releaseHeld(), 1);
      const second = await chargedOf(await late);
      assert.equal(await usageOf(service.request, loop.orgId).then((u) => u.length), 2);

      // The event resolves after the prediction; the scoring job scores it.
      service.clock.advance(1_000);
      await putEvents(service.storage, [resolved(work.event, service.clock.now())], service.clock.now());
      service.clock.advance(1_000);
      await runJobOnce(service.scoring.job, {
        leases: service.storage.jobLeases,
        nowMs: service.clock.now(),
      });

      const path = `${FEED}?days=1`;
      const feed = await service.request(
        path,
        signedInit(VALIDATOR, "GET", path, { nowMs: service.clock.now() }),
      );
      assert.equal(feed.status, 200);
      const [row] = ScoredPredictionPage.parse(await feed.json()).items;
      assert.equal(row?.agentPredictionId, work.agentPredictionId);
      assert.deepEqual([row?.llmCalls, row?.llmCostMicro], [2, String(first + second)]);

      const scored = await service.request(`/v1/events/scored?minerHotkey=${MINER.hotkey}`);
      assert.equal(scored.status, 200);
      const [item] = ScoredEventPage.parse(await scored.json()).items;
      assert.equal(item?.eventId, work.event.id);
      const minerRow = item?.miners.find((m) => m.hotkey === MINER.hotkey);
      assert.deepEqual([minerRow?.llmCalls, minerRow?.llmCostMicro], [2, String(first + second)]);

      // The customer's read of the prediction shows them on the miner's row too.
      await service.catalog.view.refresh();
      const { apiKey } = await issueKey(service.request, loop.orgId, { scopes: ["predictions:read"] });
      const customer = await service.request(`/v1/predictions/${work.event.id}`, keyInit(apiKey));
      const prediction = CustomerPredictionSchema.parse(await customer.json());
      const customerRow = prediction.miners.find((m) => m.hotkey === MINER.hotkey);
      assert.deepEqual([customerRow?.llmCalls, customerRow?.llmCostMicro], [2, String(first + second)]);
    } finally {
      await loop.service.actors.drain();
      await Deno.remove(providersFile);
    }
  },
);
