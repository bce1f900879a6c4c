/**
 * The AssignmentStore contract for a signed use (`ClaimOptions.use`, `SubmitOptions.use`): the
 * request's nonce use and rate hit made in the same atomic step as the claim or the submission.
 * A used nonce or a count over the rate changes nothing; an admitted use commits with the change,
 * or alone when the change writes nothing; racing uses of one nonce (one handle or two) admit
 * exactly one.
 */
import assert from "node:assert/strict";
import type { SignedUse } from "../../storage/nonce_store.ts";
import { StoreRefusal } from "../../storage/store_refusal.ts";
import type { ClaimResult, SubmitReceipt } from "../../storage/assignment_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { idOf, LONG_LEASE, seedQueue, submission } from "../support/assignments.ts";

const WINDOW = { windowStartMs: 1_800_000_000_000, windowMs: 60_000 };
const NONCE_LIFE = { ttlMs: 600_000 };

/** A use of `nonce` by `hotkey` in its own window (`bucket` names it), admitted up to `maxCount`. */
function useOf(hotkey: string, nonce: string, maxCount = 1_000): SignedUse {
  return { hotkey, nonce, ...NONCE_LIFE, hit: { bucket: `use-test:${hotkey}`, ...WINDOW }, maxCount };
}

adapterTest(
  "a claim with a signed use: a used nonce or a count over the rate claims nothing",
  async ({ storage }) => {
    await seedQueue(storage, { miners: 1, events: 3 });
    const store = storage.assignments;
    const first = await store.claim("5V", { ...LONG_LEASE, use: useOf("5V", "n-claim-1") });
    assert.equal(first.kind, "claimed");
    assert.deepEqual(
      await store.claim("5V", { ...LONG_LEASE, use: useOf("5V", "n-claim-1") }),
      { kind: "use_refused", use: { fresh: false, count: 2 } },
      "a replay: refused, counted",
    );
    assert.deepEqual(
      await store.claim("5V", { ...LONG_LEASE, use: useOf("5V", "n-claim-2", 2) }),
      { kind: "use_refused", use: { fresh: true, count: 3 } },
      "over the rate: refused, its nonce used up",
    );
    assert.equal(await storage.nonces.consume("5V", "n-claim-2", NONCE_LIFE), false, "n-claim-2 was used");
    assert.equal(await store.countLive("5V"), 1, "only the first use claimed");
    assert.equal(await storage.nonces.consume("5V", "n-claim-1", NONCE_LIFE), false, "the same nonces");
  },
);

adapterTest(
  "a claim that finds nothing, or the validator at its cap, still uses its nonce",
  async ({ storage }) => {
    const store = storage.assignments;
    assert.deepEqual(await store.claim("5V", { ...LONG_LEASE, use: useOf("5V", "n-none") }), {
      kind: "none",
    });
    assert.deepEqual(
      await store.claim("5V", { ...LONG_LEASE, use: useOf("5V", "n-none") }),
      { kind: "use_refused", use: { fresh: false, count: 2 } },
    );
    await seedQueue(storage, { miners: 1, events: 2 });
    const capped = { leaseMs: 600_000, maxLive: 1 };
    assert.equal((await store.claim("5V", { ...capped, use: useOf("5V", "n-cap-1") })).kind, "claimed");
    assert.deepEqual(await store.claim("5V", { ...capped, use: useOf("5V", "n-cap-2") }), {
      kind: "limit",
      live: 1,
    });
    assert.equal(
      await storage.nonces.consume("5V", "n-cap-2", NONCE_LIFE),
      false,
      "the capped claim used it",
    );
  },
);

adapterTest(
  "a submission with a signed use: refused before any lease check, used with every answer",
  async ({ storage }) => {
    const { targets } = await seedQueue(storage, { miners: 1, events: 1 });
    const store = storage.assignments;
    const id = idOf(targets[0]!);
    await store.claim("5V", LONG_LEASE);
    await assert.rejects(
      store.submit(id, { ...submission("5Other"), use: useOf("5Other", "n-other") }),
      (error) => error instanceof StoreRefusal && error.code === "lease_not_held",
    );
    assert.equal(await storage.nonces.consume("5Other", "n-other", NONCE_LIFE), false, "used by the refusal");
    await assert.rejects(
      store.submit("ap_unknown", { ...submission("5V"), use: useOf("5V", "n-unknown") }),
      (error) => error instanceof StoreRefusal && error.code === "not_found",
    );
    assert.equal(await storage.nonces.consume("5V", "n-unknown", NONCE_LIFE), false, "used by not_found");
    const replay: SubmitReceipt = await store.submit(id, {
      ...submission("5V"),
      use: useOf("5V", "n-unknown"),
    });
    assert.deepEqual(replay, {
      agentPredictionId: id,
      stored: false,
      useRefused: { fresh: false, count: 2 },
    });
    const over = await store.submit(id, { ...submission("5V"), use: useOf("5V", "n-over", 2) });
    assert.deepEqual(over.useRefused, { fresh: true, count: 3 });
    assert.equal(await store.getPrediction(id), null, "refused uses stored nothing");
    const stored = await store.submit(id, { ...submission("5V"), use: useOf("5V", "n-store") });
    assert.deepEqual(stored, { agentPredictionId: id, stored: true });
    const retry = await store.submit(id, { ...submission("5V", "retry"), use: useOf("5V", "n-retry") });
    assert.deepEqual(retry, { agentPredictionId: id, stored: false }, "a retry's ack");
    assert.equal(await storage.nonces.consume("5V", "n-retry", NONCE_LIFE), false, "used by the retry");
    const changed = await store.submit(id, {
      ...submission("5V"),
      eventVersion: -1,
      use: useOf("5V", "n-ev"),
    });
    assert.equal(changed.useRefused, undefined);
    assert.equal(await storage.nonces.consume("5V", "n-ev", NONCE_LIFE), false, "used without a write");
  },
);

/** The one admitted result of racing uses of one nonce; every other one refused as a replay. */
function oneAdmitted<T>(results: T[], refused: (result: T) => boolean): T {
  const admitted = results.filter((result) => !refused(result));
  assert.equal(admitted.length, 1, `admitted: ${JSON.stringify(admitted)}`);
  return admitted[0]!;
}

adapterTest(
  "one nonce raced in 16 claims on two instances: exactly one claims",
  { needs: "concurrency" },
  async (adapter) => {
    await seedQueue(adapter.storage, { miners: 2, events: 10 });
    const other = await adapter.openAnother();
    for (let round = 0; round < 3; round++) {
      const use = useOf("5Racer", `n-race-claim-${round}`);
      const results: ClaimResult[] = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          (i % 2 ? other : adapter.storage).assignments.claim("5Racer", {
            ...LONG_LEASE,
            use,
          })),
      );
      const won = oneAdmitted(results, (result) => result.kind === "use_refused");
      assert.equal(won.kind, "claimed");
      for (const result of results) {
        if (result.kind === "use_refused") assert.equal(result.use.fresh, false, "refused as a replay");
      }
      assert.equal(await adapter.storage.assignments.countLive("5Racer"), round + 1, "one claim per nonce");
    }
  },
);

adapterTest("one nonce raced in 16 submissions on two instances: exactly one stores", {
  needs: "concurrency",
}, async (adapter) => {
  const { targets, events } = await seedQueue(adapter.storage, { miners: 1, events: 1 });
  const id = idOf(targets[0]!);
  await adapter.storage.assignments.claim("5Racer", LONG_LEASE);
  const other = await adapter.openAnother();
  const use = useOf("5Racer", "n-race-submit");
  const results = await Promise.all(
    Array.from(
      { length: 16 },
      (_, i) => (i % 2 ? other : adapter.storage).assignments.submit(id, { ...submission("5Racer"), use }),
    ),
  );
  const won = oneAdmitted(results, (receipt) => receipt.useRefused !== undefined);
  assert.deepEqual(won, { agentPredictionId: id, stored: true });
  const predictions = await adapter.storage.assignments.listEventPredictions(events[0]!.id, { limit: 10 });
  assert.deepEqual(predictions.map((p) => p.agentPredictionId), [id], "one prediction");
  assert.equal(await adapter.storage.rateLimits.hit(use.hit.bucket, WINDOW), 17, "every use counted once");
});
