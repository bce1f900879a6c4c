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
    // On e2, uid 1 is invalid for another reason; on e0, uid 1 only for being late.
    const reasonsOf = (target: { minerUid: number; eventId: string }) =>
      target.minerUid !== 1
        ? null
        : target.eventId === e2
        ? ["agent_reported_invalid", "late_prediction"]
        : ["late_prediction"];
    for (const target of submitted) {
      const reasons = reasonsOf(target);
      const options = submission("5Validator");
      await storage.assignments.submit(idOf(target), {
        ...options,
        validation: reasons ? { isValid: false, reasons, rawObserved: null } : options.validation,
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
      isValid: reasonsOf(target) === null,
      lateOnly: reasonsOf(target)?.length === 1,
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

adapterTest(
  "eventsPredictedSince names each event with a prediction received at or after the time",
  async ({ storage }) => {
    const { events, targets } = await seedQueue(storage, { miners: 2, events: 3 });
    await claimAll(storage.assignments, "5Validator");
    const at = (n: number) => Date.UTC(2026, 10, 21, 6) + n * 60_000;
    const [e0, e1, e2] = events.map((event) => event.id);
    const plan: [string, number][] = [[e0!, 0], [e0!, 5], [e1!, 10]];
    const submittedIds = new Set<string>();
    for (const [eventId, minutes] of plan) {
      const target = targets.find((t) => t.eventId === eventId && !submittedIds.has(idOf(t)))!;
      submittedIds.add(idOf(target));
      await storage.assignments.submit(idOf(target), {
        ...submission("5Validator"),
        receivedAtMs: at(minutes),
      });
    }
    const sorted = async (sinceMs: number) =>
      (await storage.assignments.eventsPredictedSince(sinceMs)).sort();
    assert.deepEqual(await sorted(at(0)), [e0, e1].sort(), "each event once");
    assert.deepEqual(await sorted(at(5)), [e0, e1].sort(), "at the time counts");
    assert.deepEqual(await sorted(at(6)), [e1]);
    assert.deepEqual(await sorted(at(11)), []);
    assert.equal((await sorted(0)).includes(e2!), false, "an event nobody predicted is never named");
  },
);
