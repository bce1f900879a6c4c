/**
 * The validator loop end to end under concurrency, over HTTP with signed requests, on two service
 * instances sharing one store: Deno KV (two handles on one file, one process) and PostgreSQL (two
 * connection pools on a server: DATABASE_URL). The races' PostgreSQL variants are reported as
 * ignored on the embedded PGlite, which runs one transaction at a time; the tests of this file that
 * send one request after another run on it.
 */
import assert from "node:assert/strict";
import { agentPredictionId } from "../../storage/assignment_record.ts";
import type { Signer } from "../../actors/validators/mod.ts";
import { LeaseReplySchema } from "../../routes/validators/validators_api.ts";
import { adapterTest, type AdapterUnderTest } from "../support/adapters.ts";
import { errorCode } from "../support/access.ts";
import type { TestService } from "../support/test_service.ts";
import {
  LEASE,
  type Loop,
  openLoop,
  openSecondInstance,
  signedInit,
  submissionFor,
  SUBMIT,
  testSigner,
} from "../support/validator_loop.ts";

const VALIDATORS = Array.from({ length: 32 }, (_, index) => testSigner(`race-validator-${index}`));
/**
 * No validator limit gets in the way of the race itself; signatures are verified on worker
 * threads, as the service does by default (other tests verify inline: `openTestService`).
 */
const ENV = { FGW_VALIDATOR_MAX_LEASES: "1000000", FGW_VALIDATOR_RPM: "1000000", FGW_VERIFY_WORKERS: "2" };

/**
 * 10,000 assignments against a PostgreSQL server (the races run there only: on the embedded PGlite
 * they are reported as ignored); fewer on KV to keep the suite fast.
 */
function queueSize(adapter: AdapterUnderTest): { miners: number; events: number } {
  return adapter.kind === "postgres" ? { miners: 20, events: 500 } : { miners: 8, events: 60 };
}

interface Instances {
  loop: Loop;
  a: TestService;
  b: TestService;
  /** Every assignment id the queue should hold. */
  ids: string[];
}

async function openInstances(
  adapter: AdapterUnderTest,
  size: { miners: number; events: number },
): Promise<Instances> {
  const loop = await openLoop({ validators: VALIDATORS, ...size, env: ENV, storage: adapter.storage });
  const b = await openSecondInstance(loop, await adapter.openAnother(), ENV);
  const miners = loop.source.current.neurons.filter((neuron) => !neuron.validatorPermit);
  const versions = await Promise.all(miners.map((m) => loop.service.storage.agents.minerState(m.hotkey)));
  const ids = versions.flatMap((state) =>
    loop.events.map((event) =>
      agentPredictionId({ agentVersionId: state!.currentVersionId, eventId: event.id, round: 0 })
    )
  );
  return { loop, a: loop.service, b, ids };
}

async function leaseOnce(service: TestService, signer: Signer) {
  const response = await service.request(
    LEASE,
    signedInit(signer, "GET", LEASE, { nowMs: service.clock.now() }),
  );
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  return LeaseReplySchema.parse(body);
}

/** Leases until none is left, alternating instances; returns the ids leased. */
async function leaseAll(instances: Instances, signer: Signer, index: number): Promise<string[]> {
  const leased: string[] = [];
  for (let turn = index;; turn++) {
    const reply = await leaseOnce(turn % 2 === 0 ? instances.a : instances.b, signer);
    if (!reply.assignment) return leased;
    leased.push(reply.assignment.agentPredictionId);
  }
}

async function closeAll(instances: Instances): Promise<void> {
  await instances.b.close();
  await instances.a.close();
}

adapterTest(
  "32 validators leasing concurrently on two instances: no assignment leased twice, none lost",
  { needs: "concurrency" },
  async (adapter) => {
    const instances = await openInstances(adapter, queueSize(adapter));
    try {
      assert.equal(instances.ids.length, queueSize(adapter).miners * queueSize(adapter).events);
      const started = performance.now();
      const perValidator = await Promise.all(
        VALIDATORS.map((signer, index) => leaseAll(instances, signer, index)),
      );
      const seconds = (performance.now() - started) / 1000;
      const leased = perValidator.flat();
      console.log(`${adapter.kind}: ${leased.length} signed leases in ${seconds.toFixed(1)} s`);
      assert.equal(new Set(leased).size, leased.length, "no assignment was leased twice");
      assert.deepEqual(leased.toSorted(), instances.ids.toSorted(), "every assignment was leased, none lost");
      const live = await Promise.all(
        VALIDATORS.map((v) => instances.a.storage.assignments.countLive(v.hotkey)),
      );
      assert.deepEqual(
        live,
        perValidator.map((ids) => ids.length),
        "each lease is held by the validator that got it",
      );
    } finally {
      await closeAll(instances);
    }
  },
);

adapterTest(
  "50 concurrent retries of one submission on two instances store one prediction and one trace",
  { needs: "concurrency" },
  async (adapter) => {
    const instances = await openInstances(adapter, { miners: 1, events: 1 });
    try {
      const [validator] = VALIDATORS;
      const leased = (await leaseOnce(instances.a, validator!)).assignment!;
      const event = instances.loop.events[0]!;
      const body = JSON.stringify(submissionFor(leased.agentPredictionId, event));
      const responses = await Promise.all(Array.from({ length: 50 }, (_, index) => {
        const service = index % 2 === 0 ? instances.a : instances.b;
        return service.request(
          SUBMIT,
          signedInit(validator!, "POST", SUBMIT, { nowMs: service.clock.now(), body }),
        );
      }));
      const acks = await Promise.all(
        responses.map(async (response) => ({ status: response.status, body: await response.text() })),
      );
      for (const ack of acks) {
        assert.equal(ack.status, 200, ack.body);
        assert.deepEqual(JSON.parse(ack.body), {
          ok: true,
          agentPredictionId: leased.agentPredictionId,
          status: "queued",
        });
      }
      const store = instances.a.storage.assignments;
      const predictions = await store.listEventPredictions(event.id, { limit: 100 });
      assert.deepEqual(
        predictions.map((p) => p.agentPredictionId),
        [leased.agentPredictionId],
        "one prediction",
      );
      assert.equal(predictions[0]!.validatorHotkey, validator!.hotkey);
      assert.deepEqual(
        await store.getTrace(leased.agentPredictionId),
        submissionFor("", event).reasoningTrace,
      );
      assert.equal((await store.get(leased.agentPredictionId))?.status, "submitted");
    } finally {
      await closeAll(instances);
    }
  },
);

adapterTest("a nonce used on one instance is refused on the other: 401 nonce_reused", async (adapter) => {
  const instances = await openInstances(adapter, { miners: 1, events: 2 });
  try {
    const init = signedInit(VALIDATORS[0]!, "GET", LEASE, { nowMs: instances.a.clock.now() });
    const first = await instances.a.request(LEASE, init);
    assert.equal(first.status, 200);
    await first.body?.cancel();
    const replay = await instances.b.request(LEASE, init);
    assert.equal(replay.status, 401);
    assert.equal(await errorCode(replay), "nonce_reused");
    assert.equal(
      await instances.a.storage.assignments.countLive(VALIDATORS[0]!.hotkey),
      1,
      "the replay leased nothing",
    );
  } finally {
    await closeAll(instances);
  }
});

adapterTest(
  "a submission by a validator that does not hold the lease is 409 on either instance, with nothing stored",
  async (adapter) => {
    const instances = await openInstances(adapter, { miners: 1, events: 1 });
    try {
      const [holder, other] = VALIDATORS;
      const leased = (await leaseOnce(instances.a, holder!)).assignment!;
      const body = JSON.stringify(submissionFor(leased.agentPredictionId, instances.loop.events[0]!));
      for (const service of [instances.a, instances.b]) {
        const response = await service.request(
          SUBMIT,
          signedInit(other!, "POST", SUBMIT, { nowMs: service.clock.now(), body }),
        );
        assert.equal(response.status, 409);
        assert.equal(await errorCode(response), "lease_not_held");
      }
      const store = instances.a.storage.assignments;
      assert.equal(await store.getPrediction(leased.agentPredictionId), null);
      assert.equal(await store.getTrace(leased.agentPredictionId), null);
      assert.equal((await store.get(leased.agentPredictionId))?.status, "in_progress");
      const byHolder = await instances.b.request(
        SUBMIT,
        signedInit(holder!, "POST", SUBMIT, { nowMs: instances.b.clock.now(), body }),
      );
      assert.equal(byHolder.status, 200, "the holder still submits");
    } finally {
      await closeAll(instances);
    }
  },
);
