import assert from "node:assert/strict";
import type { ScoreStore } from "../../storage/score_store.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { runJobOnce } from "../support/jobs.ts";
import { minerHotkey } from "../support/assignments.ts";
import { putEvents, resolved } from "../support/events.ts";
import {
  BASE,
  DAY,
  HOUR,
  INTERVAL,
  no,
  openEvent,
  resolve,
  scoringJob,
  storePredictions,
  submit,
  syncMetagraph,
} from "./job_fixtures.ts";

const MINUTE = 60_000;

/** `target` with some methods replaced (the others bound to it: adapters keep private fields). */
function replacing<T extends object>(target: T, overrides: Partial<T>): T {
  const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(target)).filter((name) =>
    name !== "constructor"
  );
  const bound = Object.fromEntries(
    methods.map((name) => [name, (target[name as keyof T] as (...args: unknown[]) => unknown).bind(target)]),
  );
  return { ...bound, ...overrides } as T;
}

/** `store` with its writes counted. */
function countingWrites(store: ScoreStore): { store: ScoreStore; writes: string[] } {
  const writes: string[] = [];
  const counted = replacing(store, {
    putEventsFenced: (events, options) => {
      writes.push(...events.map(({ event }) => `event ${event.eventId}`));
      return store.putEventsFenced(events, options);
    },
    putTableFenced: (table, options) => {
      writes.push(`table ${table.computedAtMs}`);
      return store.putTableFenced(table, options);
    },
  });
  return { store: counted, writes };
}

adapterTest("a re-run over the same inputs writes nothing new", async ({ storage }) => {
  const event = openEvent("polymarket-1");
  await storePredictions(storage, [event], [{ event, uid: 0, pYes: 0.7 }, { event, uid: 1, pYes: 0.4 }]);
  await resolve(storage, event, BASE + 50 * HOUR, BASE + 50 * HOUR);
  await syncMetagraph(storage, [0, 1], { syncedAtMs: BASE });
  const { store, writes } = countingWrites(storage.scores);
  const read: string[] = [];
  const assignments = replacing<AssignmentStore>(storage.assignments, {
    scoringPredictionsOfEvents: (eventIds) => {
      read.push(...eventIds);
      return storage.assignments.scoringPredictionsOfEvents(eventIds);
    },
  });
  const job = scoringJob(storage, { scores: store, assignments });
  const first = BASE + 3 * DAY + MINUTE;
  await runJobOnce(job, { leases: storage.jobLeases, nowMs: first });
  assert.deepEqual(writes, [`event ${event.id}`, `table ${BASE + 3 * DAY}`]);
  assert.deepEqual(read, [event.id]);
  const progress = await storage.settings.get("scoring_progress");
  await runJobOnce(job, { leases: storage.jobLeases, nowMs: first + 2 * MINUTE });
  await runJobOnce(scoringJob(storage, { scores: store }), {
    leases: storage.jobLeases,
    nowMs: first + 3 * MINUTE,
  });
  assert.equal(writes.length, 2);
  assert.deepEqual(read, [event.id], "an event already scored, with nothing new, is not read again");
  assert.equal((await storage.scores.getEvent(event.id))?.scoredAtMs, first);
  assert.equal(await storage.settings.get("scoring_progress"), progress);
  await runJobOnce(job, { leases: storage.jobLeases, nowMs: first + INTERVAL });
  assert.deepEqual(writes.slice(2), [`table ${BASE + 3 * DAY + INTERVAL}`]);
});

adapterTest(
  "a submission that arrives after the event was scored is scored next run; after an early resolution it is late",
  async ({ storage }) => {
    const event = openEvent("polymarket-1");
    const other = openEvent("polymarket-2");
    const resolvedAt = BASE + 2 * HOUR; // before the event's end (BASE + 48 h): an early resolution
    const [first, second] = await storePredictions(storage, [event, other], [
      { event, uid: 0, pYes: 0.7, receivedAtMs: BASE + HOUR },
      { event, uid: 0, pYes: 0.9, receivedAtMs: resolvedAt + HOUR, round: 1, later: true },
    ]);
    await resolve(storage, event, resolvedAt, resolvedAt);
    await syncMetagraph(storage, [0], { syncedAtMs: BASE });
    const job = scoringJob(storage);
    await runJobOnce(job, { leases: storage.jobLeases, nowMs: resolvedAt + MINUTE });
    assert.deepEqual((await storage.scores.getEvent(event.id))?.stats, {
      scored: 1,
      valid: 1,
      meanBrier: 0.09,
      calledRate: 1,
      bestUid: 0,
    });
    await submit(storage, second!, { event, uid: 0, pYes: 0.9, receivedAtMs: resolvedAt + HOUR, round: 1 });
    // A later change elsewhere moves the feed past the event: only its watch brings it back.
    await putEvents(storage, [{ ...other, question: "Changed?" }], resolvedAt + 3 * MINUTE);
    await runJobOnce(job, { leases: storage.jobLeases, nowMs: resolvedAt + 6 * MINUTE });
    const rows = await storage.scores.eventPredictions(event.id);
    const view = rows.map(({ agentPredictionId, counted, reasons, brier }) => ({
      agentPredictionId,
      counted,
      reasons,
      brier,
    }));
    assert.deepEqual(
      view.toSorted((a, b) => (a.agentPredictionId === first ? -1 : b.agentPredictionId === first ? 1 : 0)),
      [
        { agentPredictionId: first, counted: false, reasons: [], brier: 0.09 },
        { agentPredictionId: second, counted: true, reasons: ["late_prediction"], brier: null },
      ],
    );
    const scored = await storage.scores.getEvent(event.id);
    assert.deepEqual(scored?.stats, {
      scored: 1,
      valid: 0,
      meanBrier: null,
      calledRate: null,
      bestUid: null,
    });
    assert.equal(scored?.scoredAtMs, resolvedAt + 6 * MINUTE);
    assert.equal((await storage.assignments.get(second!))?.status, "scored");
    const table = await storage.scores.getTable();
    assert.deepEqual(table?.rows.map((row) => [row.scoring.preds, row.scoring.invalidPreds]), [[1, 1]]);
  },
);

adapterTest(
  "the score table follows current registrations: a re-registered uid is a new miner",
  async ({ storage }) => {
    const event = openEvent("polymarket-1");
    await storePredictions(storage, [event], [{ event, uid: 0, pYes: 0.7 }, { event, uid: 1, pYes: 0.7 }]);
    await resolve(storage, event, BASE + 50 * HOUR, BASE + 50 * HOUR);
    await syncMetagraph(storage, [0, 1], { syncedAtMs: BASE });
    const later = BASE + 2 * DAY;
    await syncMetagraph(storage, [1, 2], { syncedAtMs: later, hotkeys: { 1: "5NewOwnerOfUid1" } });
    await runJobOnce(scoringJob(storage), { leases: storage.jobLeases, nowMs: BASE + 3 * DAY });
    const table = await storage.scores.getTable();
    const rows = table?.rows.map((row) => ({ uid: row.uid, hotkey: row.hotkey, preds: row.scoring.preds }));
    assert.deepEqual(rows, [
      { uid: 1, hotkey: "5NewOwnerOfUid1", preds: 0 },
      { uid: 2, hotkey: minerHotkey(2), preds: 0 },
    ]);
    assert.equal(table?.rows[0]?.firstSeenAtMs, later);
    assert.equal(table?.rows[0]?.scoring.ageHours, 24);
  },
);

adapterTest("a run that lost the scoring job writes nothing", async ({ storage }) => {
  const event = openEvent("polymarket-1");
  const [id] = await storePredictions(storage, [event], [{ event, uid: 0, pYes: 0.7 }]);
  await resolve(storage, event, BASE + 50 * HOUR, BASE + 50 * HOUR);
  await syncMetagraph(storage, [0], { syncedAtMs: BASE });
  const stale = await storage.jobLeases.tryAcquire("scoring", { holder: "a", ttlMs: 60_000 });
  await storage.jobLeases.release("scoring", { token: stale!.token });
  assert.ok(await storage.jobLeases.tryAcquire("scoring", { holder: "b", ttlMs: 60_000 }));
  const run = { signal: new AbortController().signal, fence: { job: "scoring", token: stale!.token } };
  await scoringJob(storage).run(BASE + 3 * DAY, run);
  assert.equal(await storage.scores.getEvent(event.id), null);
  assert.equal(await storage.scores.getTable(), null);
  assert.equal(await storage.settings.get("scoring_progress"), null);
  assert.equal((await storage.assignments.get(id!))?.status, "submitted");
});

adapterTest("a run that crashed while marking is finished by the next one", async ({ storage }) => {
  const event = openEvent("polymarket-1");
  const ids = await storePredictions(storage, [event], [
    { event, uid: 0, pYes: 0.7 },
    { event, uid: 1, pYes: 0.6 },
    { event, uid: 2, pYes: 0.1 },
  ]);
  await resolve(storage, event, BASE + 50 * HOUR, BASE + 50 * HOUR);
  await syncMetagraph(storage, [0, 1, 2], { syncedAtMs: BASE });
  // The connection drops after the first prediction of the batch was marked.
  const crashing = replacing<AssignmentStore>(storage.assignments, {
    markScoredMany: async ([group]) => {
      const { agentPredictionIds: [first], ...options } = group!;
      await storage.assignments.markScored(first!, options);
      throw new Error("connection lost");
    },
  });
  const nowMs = BASE + 3 * DAY;
  await assert.rejects(
    runJobOnce(scoringJob(storage, { assignments: crashing }), { leases: storage.jobLeases, nowMs }),
    /connection lost/,
  );
  const statuses = () => Promise.all(ids.map(async (id) => (await storage.assignments.get(id))?.status));
  assert.deepEqual((await statuses()).toSorted(), ["scored", "submitted", "submitted"]);
  assert.equal(await storage.settings.get("scoring_progress"), null);
  await runJobOnce(scoringJob(storage), { leases: storage.jobLeases, nowMs: nowMs + MINUTE });
  assert.deepEqual(await statuses(), ["scored", "scored", "scored"]);
  assert.equal((await storage.scores.getEvent(event.id))?.scoredAtMs, nowMs);
  assert.ok(await storage.scores.getTable());
});

adapterTest(
  "a settled resolution is final: a different later settlement is logged and counted, not re-scored",
  async ({ storage }) => {
    const event = openEvent("polymarket-1");
    await storePredictions(storage, [event], [{ event, uid: 0, pYes: 0.7 }]);
    const settled = await resolve(storage, event, BASE + 50 * HOUR, BASE + 50 * HOUR);
    await syncMetagraph(storage, [0], { syncedAtMs: BASE });
    const conflicts: string[] = [];
    const lines: string[] = [];
    const job = scoringJob(storage, {
      onSettlementContradicted: (eventId) => conflicts.push(eventId),
      log: (line) => lines.push(line.msg),
    });
    await runJobOnce(job, { leases: storage.jobLeases, nowMs: BASE + 3 * DAY });
    const before = await storage.scores.getEvent(event.id);
    const reversed = {
      ...settled,
      resolution: { ...resolved(event, BASE + 60 * HOUR).resolution, winningOutcomeId: no(event) },
    };
    await putEvents(storage, [reversed], BASE + 3 * DAY + MINUTE);
    await runJobOnce(job, { leases: storage.jobLeases, nowMs: BASE + 3 * DAY + 2 * MINUTE });
    await putEvents(storage, [{ ...reversed, currentVolumeUsd: 1 }], BASE + 3 * DAY + 3 * MINUTE);
    await runJobOnce(job, { leases: storage.jobLeases, nowMs: BASE + 3 * DAY + 4 * MINUTE });
    assert.deepEqual(await storage.scores.getEvent(event.id), before);
    assert.deepEqual(conflicts, [event.id]);
    assert.equal(
      lines.filter((msg) =>
        msg === "event settlement differs from the scored one; the scored settlement is kept"
      ).length,
      1,
    );
  },
);
