import assert from "node:assert/strict";
import { type ScoredResolution, scoringPredictionOf } from "../../storage/assignment_record.ts";
import { adapterTest } from "../support/adapters.ts";
import { claimAll, idOf, seedQueue, submission } from "../support/assignments.ts";

function resolution(outcome: string): ScoredResolution {
  return { resolutionStatus: "resolved", resolvedOutcomeId: outcome, finalOutcomePrices: { [outcome]: 1 } };
}

const byEventThenId = (
  a: { eventId: string; agentPredictionId: string },
  b: { eventId: string; agentPredictionId: string },
) =>
  a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : a.agentPredictionId < b.agentPredictionId ? -1 : 1;

adapterTest(
  "the scoring job's batch reads: what the scorer reads of many events' predictions, and the events with unscored ones",
  async ({ storage }) => {
    const { events, targets } = await seedQueue(storage, { miners: 3, events: 3 });
    await claimAll(storage.assignments, "5Validator");
    const [e0, e1, e2] = events.map((event) => event.id) as [string, string, string];
    const submitted = targets.filter((t) => t.eventId !== e1);
    for (const target of submitted) await storage.assignments.submit(idOf(target), submission("5Validator"));
    const stored = await Promise.all(submitted.map((t) => storage.assignments.getPrediction(idOf(t))));
    const expected = stored.map((p) => scoringPredictionOf(p!)).toSorted(byEventThenId);
    assert.deepEqual(
      await storage.assignments.scoringPredictionsOfEvents([e2, e1, e0, "polymarket-unknown"]),
      expected,
    );
    assert.equal(expected[0]!.predictionIsInvalid, false);
    assert.deepEqual(await storage.assignments.scoringPredictionsOfEvents([]), []);
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
        eventId: e0,
        agentPredictionIds: ofEvent(e0),
        scoredAtMs: 9_000,
        resolvedAtMs: 8_000,
        resolution: resolution("yes"),
      },
      {
        eventId: e2,
        agentPredictionIds: rest,
        scoredAtMs: 9_000,
        resolvedAtMs: 7_000,
        resolution: resolution("no"),
      },
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
    assert.equal((await storage.assignments.getPrediction(left!))?.scored, null);
    assert.equal((await storage.assignments.get(rest[0]!))?.status, "scored");
    assert.equal((await storage.assignments.get(left!))?.status, "submitted");
    assert.deepEqual(await storage.assignments.eventsWithUnscored([e0, e1, e2]), [e2]);
    // A later mark of the same event (a late submission) lists only what was not marked.
    const again = { eventId: e2, scoredAtMs: 9_500, resolvedAtMs: 7_000, resolution: resolution("no") };
    assert.equal(
      await storage.assignments.markScoredMany([{ ...again, agentPredictionIds: ofEvent(e2) }]),
      1,
    );
    assert.equal((await storage.assignments.getPrediction(left!))?.scored?.scoredAtMs, 9_500);
    assert.equal((await storage.assignments.getPrediction(rest[0]!))?.scored?.scoredAtMs, 9_000);
    assert.deepEqual(await storage.assignments.eventsWithUnscored([e0, e1, e2]), []);
    const listed = await storage.assignments.listEventPredictions(e2, { limit: 10 });
    assert.deepEqual(listed.map((p) => p.scored?.scoredAtMs).toSorted(), [9_000, 9_000, 9_500]);
  },
);

adapterTest(
  "two instances marking the same predictions at once mark each exactly once",
  { needs: "concurrency" },
  async ({ storage, openAnother }) => {
    const other = await openAnother();
    const { events, targets } = await seedQueue(storage, { miners: 4, events: 3 });
    await claimAll(storage.assignments, "5Validator");
    for (const target of targets) await storage.assignments.submit(idOf(target), submission("5Validator"));
    const groups = (scoredAtMs: number) =>
      events.map((event) => ({
        eventId: event.id,
        agentPredictionIds: targets.filter((t) => t.eventId === event.id).map(idOf),
        scoredAtMs,
        resolvedAtMs: 8_000,
        resolution: resolution("yes"),
      }));
    const [a, b] = await Promise.all([
      storage.assignments.markScoredMany(groups(1)),
      other.assignments.markScoredMany(groups(2)),
    ]);
    assert.equal(a + b, targets.length);
    const scored = await Promise.all(targets.map((t) => storage.assignments.getPrediction(idOf(t))));
    assert.ok(scored.every((p) => p?.scored?.scoredAtMs === 1 || p?.scored?.scoredAtMs === 2));
    assert.equal(scored.filter((p) => p?.scored?.scoredAtMs === 1).length, a);
    assert.deepEqual(await storage.assignments.eventsWithUnscored(events.map((event) => event.id)), []);
  },
);
