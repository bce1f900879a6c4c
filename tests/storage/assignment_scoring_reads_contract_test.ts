import assert from "node:assert/strict";
import type { ScoredResolution } from "../../storage/assignment_record.ts";
import { adapterTest } from "../support/adapters.ts";
import { claimAll, idOf, seedQueue, submission } from "../support/assignments.ts";

function resolution(outcome: string): ScoredResolution {
  return { resolutionStatus: "resolved", resolvedOutcomeId: outcome, finalOutcomePrices: { [outcome]: 1 } };
}

adapterTest(
  "the scoring job's batch reads: every prediction of many events, and the events with unscored ones",
  async ({ storage }) => {
    const { events, targets } = await seedQueue(storage, { miners: 3, events: 3 });
    await claimAll(storage.assignments, "5Validator");
    const [e0, e1, e2] = events.map((event) => event.id) as [string, string, string];
    const submitted = targets.filter((t) => t.eventId !== e1);
    for (const target of submitted) await storage.assignments.submit(idOf(target), submission("5Validator"));
    const one = await Promise.all(submitted.map((t) => storage.assignments.getPrediction(idOf(t))));
    const expected = one.toSorted((a, b) =>
      a!.eventId < b!.eventId
        ? -1
        : a!.eventId > b!.eventId
        ? 1
        : a!.agentPredictionId < b!.agentPredictionId
        ? -1
        : 1
    );
    assert.deepEqual(
      await storage.assignments.listPredictionsOfEvents([e2, e1, e0, "polymarket-unknown"]),
      expected,
    );
    assert.deepEqual(await storage.assignments.listPredictionsOfEvents([]), []);
    assert.deepEqual(
      (await storage.assignments.eventsWithUnscored([e0, e1, e2, "x"])).toSorted(),
      [e0, e2].toSorted(),
    );
    assert.deepEqual(await storage.assignments.eventsWithUnscored([]), []);

    // Two groups, two resolutions, in one call; one prediction of e2 left unmarked.
    const ofEvent = (eventId: string) => submitted.filter((t) => t.eventId === eventId).map(idOf);
    const [left, ...rest] = ofEvent(e2);
    const marked = await storage.assignments.markScoredMany([
      {
        agentPredictionIds: ofEvent(e0),
        scoredAtMs: 9_000,
        resolvedAtMs: 8_000,
        resolution: resolution("yes"),
      },
      { agentPredictionIds: rest, scoredAtMs: 9_000, resolvedAtMs: 7_000, resolution: resolution("no") },
    ]);
    assert.equal(marked, 5);
    assert.deepEqual((await storage.assignments.getPrediction(ofEvent(e0)[0]!))?.scored, {
      scoredAtMs: 9_000,
      resolvedAtMs: 8_000,
      resolution: resolution("yes"),
    });
    assert.deepEqual((await storage.assignments.getPrediction(rest[1]!))?.scored, {
      scoredAtMs: 9_000,
      resolvedAtMs: 7_000,
      resolution: resolution("no"),
    });
    assert.equal((await storage.assignments.get(rest[0]!))?.status, "scored");
    assert.deepEqual(await storage.assignments.eventsWithUnscored([e0, e1, e2]), [e2]);
    await storage.assignments.markScoredMany([
      { agentPredictionIds: [left!], scoredAtMs: 9_500, resolvedAtMs: 7_000, resolution: resolution("no") },
    ]);
    assert.deepEqual(await storage.assignments.eventsWithUnscored([e0, e1, e2]), []);
  },
);
