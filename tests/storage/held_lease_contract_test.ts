/**
 * `AssignmentStore.heldLease`: the lease check of a validator completion, by the rule a
 * submission meets (docs/assignments.md, "Submitting").
 */
import assert from "node:assert/strict";
import type { Claimed } from "../../storage/assignment_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { claimAll, idOf, seedQueue, submission, waitMs } from "../support/assignments.ts";

const GRACE = { graceMs: 600_000 };

adapterTest(
  "the holder of a live lease holds it; another validator, an unknown id and unleased work do not",
  async ({ storage }) => {
    const { targets } = await seedQueue(storage, { miners: 1, events: 2 });
    const [claimed] = await claimAll(storage.assignments, "5Holder", 1);
    const id = claimed!.assignment.agentPredictionId;
    const held = await storage.assignments.heldLease(id, { validatorHotkey: "5Holder", ...GRACE });
    assert.equal(held?.agentPredictionId, id);
    assert.equal(held?.minerHotkey, claimed!.assignment.minerHotkey);
    assert.equal(held?.lease?.validatorHotkey, "5Holder");
    assert.equal(await storage.assignments.heldLease(id, { validatorHotkey: "5Other", ...GRACE }), null);
    assert.equal(
      await storage.assignments.heldLease("ap_unknown", { validatorHotkey: "5Holder", ...GRACE }),
      null,
    );
    const unleased = idOf(targets.find((target) => idOf(target) !== id)!);
    assert.equal(
      await storage.assignments.heldLease(unleased, { validatorHotkey: "5Holder", ...GRACE }),
      null,
    );
  },
);

adapterTest("a submitted lease is held no more", async ({ storage }) => {
  await seedQueue(storage, { miners: 1, events: 1 });
  const [claimed] = await claimAll(storage.assignments, "5Holder", 1);
  const id = claimed!.assignment.agentPredictionId;
  assert.equal((await storage.assignments.submit(id, submission("5Holder"))).stored, true);
  assert.equal(await storage.assignments.heldLease(id, { validatorHotkey: "5Holder", ...GRACE }), null);
});

adapterTest(
  "an expired lease is held within the grace, not past it, and not after a re-claim",
  async ({ storage }) => {
    await seedQueue(storage, { miners: 1, events: 1 });
    const first = await storage.assignments.claim("5First", { leaseMs: 20, maxLive: 10 }) as Claimed;
    const id = first.assignment.agentPredictionId;
    await waitMs(60);
    assert.equal(await storage.assignments.heldLease(id, { validatorHotkey: "5First", graceMs: 0 }), null);
    assert.equal(
      (await storage.assignments.heldLease(id, { validatorHotkey: "5First", ...GRACE }))?.agentPredictionId,
      id,
    );
    const second = await storage.assignments.claim("5Second", { leaseMs: 600_000, maxLive: 10 }) as Claimed;
    assert.equal(second.assignment.agentPredictionId, id);
    assert.equal(await storage.assignments.heldLease(id, { validatorHotkey: "5First", ...GRACE }), null);
    assert.equal(
      (await storage.assignments.heldLease(id, { validatorHotkey: "5Second", graceMs: 0 }))
        ?.agentPredictionId,
      id,
    );
  },
);
