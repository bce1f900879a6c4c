/**
 * A lease's and a submission's nonce is used in the same storage step as the claim or the
 * submission (one commit per request). Raced copies of ONE signed request (one nonce) over HTTP on
 * two service instances sharing one store — Deno KV (two handles on one file) and PostgreSQL (two
 * connection pools on a server: DATABASE_URL; on the embedded PGlite, which runs one transaction
 * at a time, the races are reported as ignored) — are accepted exactly once, and the refused copies
 * store nothing. Every copy counts once in the validator's rate window.
 */
import assert from "node:assert/strict";
import { windowAt } from "../../actors/keys/mod.ts";
import { validatorBucket } from "../../actors/validators/mod.ts";
import { LeaseReplySchema } from "../../routes/validators/validators_api.ts";
import { adapterTest, type AdapterUnderTest } from "../support/adapters.ts";
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

const VALIDATOR = testSigner("use-validator-0");
const COPIES = 16;

interface Two {
  loop: Loop;
  a: TestService;
  b: TestService;
}

async function openTwo(adapter: AdapterUnderTest, events: number): Promise<Two> {
  const loop = await openLoop({ validators: [VALIDATOR], miners: 1, events, storage: adapter.storage });
  const b = await openSecondInstance(loop, await adapter.openAnother());
  return { loop, a: loop.service, b };
}

async function closeTwo({ a, b }: Two): Promise<void> {
  await b.close();
  await a.close();
}

/** Sends `init` to `path` COPIES times at once, alternating instances; status and body of each. */
async function race(two: Two, path: string, init: RequestInit) {
  return await Promise.all(Array.from({ length: COPIES }, async (_, index) => {
    const response = await (index % 2 ? two.b : two.a).request(path, init);
    return { status: response.status, body: await response.json() };
  }));
}

/** The one accepted reply; every other copy must be 401 nonce_reused. */
function acceptedOnce<T extends { status: number; body: { error?: { code: string } } }>(replies: T[]): T {
  const accepted = replies.filter((reply) => reply.status === 200);
  assert.equal(accepted.length, 1, JSON.stringify(replies.map((reply) => reply.status)));
  for (const reply of replies) {
    if (reply.status !== 200) assert.deepEqual([reply.status, reply.body.error?.code], [401, "nonce_reused"]);
  }
  return accepted[0]!;
}

/** The validator's count in the current rate window, with one more hit (the count it had + 1). */
async function countedPlusOne(two: Two): Promise<number> {
  const window = windowAt(two.a.clock.now());
  return await two.a.storage.rateLimits.hit(validatorBucket(VALIDATOR.hotkey), {
    windowStartMs: window.startMs,
    windowMs: window.endMs - window.startMs,
  });
}

adapterTest(
  "one signed lease raced on two instances: one claim, every other copy nonce_reused",
  { needs: "concurrency" },
  async (adapter) => {
    const two = await openTwo(adapter, 4);
    try {
      const init = signedInit(VALIDATOR, "GET", LEASE, { nowMs: two.a.clock.now() });
      const accepted = acceptedOnce(await race(two, LEASE, init));
      const leased = LeaseReplySchema.parse(accepted.body).assignment!;
      assert.equal(await two.a.storage.assignments.countLive(VALIDATOR.hotkey), 1, "one lease");
      assert.equal((await two.b.storage.assignments.get(leased.agentPredictionId))?.leaseCount, 1);
      assert.equal(await countedPlusOne(two), COPIES + 1, "every copy counted once");
    } finally {
      await closeTwo(two);
    }
  },
);

adapterTest(
  "one signed lease raced with no work available: one none_available, the rest nonce_reused",
  { needs: "concurrency" },
  async (adapter) => {
    const two = await openTwo(adapter, 0);
    try {
      const init = signedInit(VALIDATOR, "GET", LEASE, { nowMs: two.a.clock.now() });
      const accepted = acceptedOnce(await race(two, LEASE, init));
      assert.deepEqual(accepted.body, { assignment: null, reason: "none_available" });
      assert.equal(await countedPlusOne(two), COPIES + 1);
    } finally {
      await closeTwo(two);
    }
  },
);

adapterTest(
  "one signed submission raced on two instances: one prediction, every other copy nonce_reused",
  { needs: "concurrency" },
  async (adapter) => {
    const two = await openTwo(adapter, 1);
    try {
      const lease = signedInit(VALIDATOR, "GET", LEASE, { nowMs: two.a.clock.now() });
      const leased = LeaseReplySchema.parse(await (await two.a.request(LEASE, lease)).json()).assignment!;
      const event = two.loop.events[0]!;
      const body = JSON.stringify(submissionFor(leased.agentPredictionId, event));
      const init = signedInit(VALIDATOR, "POST", SUBMIT, { nowMs: two.a.clock.now(), body });
      const accepted = acceptedOnce(await race(two, SUBMIT, init));
      assert.deepEqual(accepted.body, {
        ok: true,
        agentPredictionId: leased.agentPredictionId,
        status: "queued",
      });
      const store = two.a.storage.assignments;
      const predictions = await store.listEventPredictions(event.id, { limit: 10 });
      assert.deepEqual(
        predictions.map((p) => p.agentPredictionId),
        [leased.agentPredictionId],
        "one prediction",
      );
      assert.deepEqual(
        await store.getTrace(leased.agentPredictionId),
        submissionFor("", event).reasoningTrace,
      );
      assert.equal(await countedPlusOne(two), 1 + COPIES + 1, "the lease and every copy counted once");
    } finally {
      await closeTwo(two);
    }
  },
);

adapterTest(
  "a lease and a submission signed with one nonce, raced: exactly one is accepted",
  { needs: "concurrency" },
  async (adapter) => {
    const two = await openTwo(adapter, 2);
    try {
      const first = signedInit(VALIDATOR, "GET", LEASE, { nowMs: two.a.clock.now() });
      const leased = LeaseReplySchema.parse(await (await two.a.request(LEASE, first)).json()).assignment!;
      const nowMs = two.a.clock.now();
      const nonce = "one-nonce-two-routes-0001";
      const body = JSON.stringify(submissionFor(leased.agentPredictionId, two.loop.events[0]!));
      const [lease, submit] = await Promise.all([
        two.b.request(LEASE, signedInit(VALIDATOR, "GET", LEASE, { nowMs, nonce })),
        two.a.request(SUBMIT, signedInit(VALIDATOR, "POST", SUBMIT, { nowMs, nonce, body })),
      ]);
      const replies = [lease, submit].map((response) => response.status);
      await Promise.all([lease.body?.cancel(), submit.body?.cancel()]);
      assert.deepEqual(replies.toSorted(), [200, 401], `statuses: ${replies}`);
      const store = two.a.storage.assignments;
      const submitted = (await store.getPrediction(leased.agentPredictionId)) !== null;
      assert.equal(submitted, submit.status === 200, "a prediction only when the submission won");
      assert.equal(
        await store.countLive(VALIDATOR.hotkey),
        submitted ? 0 : 2,
        "a new lease only when the lease won",
      );
    } finally {
      await closeTwo(two);
    }
  },
);
