import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { claimAll, idOf, seedQueue, submission } from "../support/assignments.ts";

adapterTest(
  "eventDigests returns the predictions of many events in one call, by event then id",
  async ({ storage }) => {
    const { events, targets } = await seedQueue(storage, { miners: 2, events: 3 });
    await claimAll(storage.assignments, "5Validator");
    const [e0, e1, e2] = events.map((event) => event.id);
    const submitted = targets.filter((t) => t.eventId !== e1);
    for (const target of submitted) {
      const invalid = target.minerUid === 1 && target.eventId === e2;
      const options = submission("5Validator");
      await storage.assignments.submit(idOf(target), {
        ...options,
        validation: invalid
          ? { isValid: false, reasons: ["agent_reported_invalid"], rawObserved: null }
          : options.validation,
      });
    }
    const digests = await storage.assignments.eventDigests([e2!, e1!, e0!, "polymarket-unknown"]);
    const expected = submitted.map((target) => ({
      agentPredictionId: idOf(target),
      eventId: target.eventId,
      minerHotkey: target.minerHotkey,
      minerUid: target.minerUid,
      predictedAtMs: Date.UTC(2026, 10, 21, 6),
      outcomeProbabilities: { yes: 0.7, no: 0.3 },
      isValid: !(target.minerUid === 1 && target.eventId === e2),
    })).sort((a, b) =>
      a.eventId < b.eventId
        ? -1
        : a.eventId > b.eventId
        ? 1
        : a.agentPredictionId < b.agentPredictionId
        ? -1
        : 1
    );
    assert.deepEqual(digests, expected);
    assert.deepEqual(await storage.assignments.eventDigests([]), []);
    assert.deepEqual(await storage.assignments.eventDigests([e1!]), []);
  },
);
