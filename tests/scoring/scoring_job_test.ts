import { emptyScoring } from "../support/scoring_rows.ts";
import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import {
  computedAtOf,
  parseScorerInput,
  scorerEventOf,
  scorerPredictionOf,
  scoreV1,
} from "../../actors/scoring/mod.ts";
import { scoringPredictionOf } from "../../storage/assignment_record.ts";
import type { ScoredEventRecord, ScoreTableRow } from "../../storage/score_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { runJobOnce } from "../support/jobs.ts";
import { minerHotkey } from "../support/assignments.ts";
import { putEvents } from "../support/events.ts";
import {
  BASE,
  DAY,
  HOUR,
  INTERVAL,
  no,
  openEvent,
  resolve,
  scoringJob,
  storeFiveResolvedEvents,
  storePredictions,
  syncMetagraph,
  yes,
} from "./job_fixtures.ts";

const FIRST_SEEN = BASE - 10 * DAY;
const RESOLVED_AT = BASE + 50 * HOUR;

Deno.test("a run computes at the start of its interval", () => {
  assert.equal(computedAtOf(Date.UTC(2026, 10, 20, 12, 7, 31), INTERVAL), Date.UTC(2026, 10, 20, 12, 5));
  assert.equal(computedAtOf(Date.UTC(2026, 10, 20, 12, 5), INTERVAL), Date.UTC(2026, 10, 20, 12, 5));
});

adapterTest(
  "the job scores a resolved event's predictions, marks them scored and stores hand-checked values",
  async ({ storage }) => {
    const clock = new ManualClock(BASE + 3 * DAY + 7 * 60_000);
    const event = openEvent("polymarket-1");
    const [a, b, c] = await storePredictions(storage, [event], [
      { event, uid: 0, pYes: 0.7 },
      { event, uid: 1, pYes: 0.2 },
      { event, uid: 2, pYes: 0.9, invalid: true },
    ]);
    await resolve(storage, event, RESOLVED_AT, RESOLVED_AT);
    await syncMetagraph(storage, [0, 1, 2, 3], { syncedAtMs: FIRST_SEEN });
    await runJobOnce(scoringJob(storage), { leases: storage.jobLeases, nowMs: clock.now() });

    const expected: ScoredEventRecord = {
      eventId: event.id,
      source: "polymarket",
      sourceMarketId: "1",
      question: event.question,
      outcomes: event.outcomes,
      endDate: event.endDate,
      outcomePricesAtAdmission: event.outcomePricesAtAdmission,
      resolvedAtMs: RESOLVED_AT,
      winningOutcomeId: yes(event),
      scoredAtMs: clock.now(),
      marketPWinAtAdmission: 0.4,
      stats: { scored: 3, valid: 2, meanBrier: 0.365, calledRate: 0.5, bestUid: 0 },
    };
    assert.deepEqual(await storage.scores.getEvent(event.id), expected);
    const rows = await storage.scores.eventPredictions(event.id);
    const byId = new Map(rows.map((row) => [row.agentPredictionId, row]));
    const values = (id: string) => {
      const { pWin, brier, called, marketBrier, reasons, counted, minerUid } = byId.get(id)!;
      return { minerUid, counted, reasons, pWin, brier, called, marketBrier };
    };
    // Market at prediction = the lease's prices (0.4 yes): marketBrier = (1 − 0.4)² = 0.36.
    assert.deepEqual(values(a!), {
      minerUid: 0,
      counted: true,
      reasons: [],
      pWin: 0.7,
      brier: 0.09,
      called: true,
      marketBrier: 0.36,
    });
    assert.deepEqual(values(b!), {
      minerUid: 1,
      counted: true,
      reasons: [],
      pWin: 0.2,
      brier: 0.64,
      called: false,
      marketBrier: 0.36,
    });
    assert.deepEqual(values(c!), {
      minerUid: 2,
      counted: true,
      reasons: ["agent_reported_invalid"],
      pWin: null,
      brier: null,
      called: null,
      marketBrier: null,
    });
    for (const id of [a!, b!, c!]) {
      const stored = await storage.assignments.getPrediction(id);
      assert.deepEqual(stored?.scored, {
        scoredAtMs: clock.now(),
        resolvedAtMs: RESOLVED_AT,
        resolution: {
          resolutionStatus: "resolved",
          resolvedOutcomeId: yes(event),
          finalOutcomePrices: { [yes(event)]: 1, [no(event)]: 0 },
        },
      });
      assert.equal((await storage.assignments.get(id))?.status, "scored");
    }

    const table = await storage.scores.getTable();
    const computedAtMs = BASE + 3 * DAY + 5 * 60_000;
    const ageHours = 312.083333; // 13 days and 5 minutes
    const row = (uid: number, scoring: ScoreTableRow["scoring"]): ScoreTableRow => ({
      hotkey: minerHotkey(uid),
      uid,
      firstSeenAtMs: FIRST_SEEN,
      scoring,
      unroundedScore: 0,
    });
    assert.deepEqual(table, {
      computedAtMs,
      windowDays: 30,
      rows: [
        row(0, {
          ...emptyScoring(ageHours, "min_predictions"),
          ...{ raw: 0.27, edge: 0.27, accuracy: 1, calibration: 0.7, brier: 0.09, weightedBrier: 0.09 },
          ...{ roi: 1.5, preds: 1, validPreds: 1, rho: 0.090909, effN: 1 },
        }),
        row(1, {
          ...emptyScoring(ageHours, "min_predictions"),
          ...{ raw: -0.28, edge: -0.28, calibration: 0.2, brier: 0.64, weightedBrier: 0.64 },
          ...{ roi: -1, preds: 1, validPreds: 1, rho: 0.090909, effN: 1 },
        }),
        row(2, { ...emptyScoring(ageHours, "invalid_rate"), preds: 1, invalidPreds: 1 }),
        row(3, emptyScoring(ageHours, "no_predictions")),
      ],
    });
  },
);

adapterTest(
  "voided and unresolved events are not scored; their predictions stay submitted",
  async ({ storage }) => {
    const voided = openEvent("polymarket-2");
    const open = openEvent("polymarket-3");
    const ids = await storePredictions(storage, [voided, open], [
      { event: voided, uid: 0, pYes: 0.7 },
      { event: open, uid: 0, pYes: 0.7 },
    ]);
    const settled = {
      ...voided,
      resolution: {
        resolvedAt: new Date(RESOLVED_AT).toISOString(),
        resolutionStatus: "voided" as const,
        winningOutcomeId: null,
        winningOutcomeName: null,
        finalOutcomePrices: { [yes(voided)]: 0.5, [no(voided)]: 0.5 },
      },
    };
    await putEvents(storage, [settled], RESOLVED_AT);
    await syncMetagraph(storage, [0], { syncedAtMs: FIRST_SEEN });
    await runJobOnce(scoringJob(storage), { leases: storage.jobLeases, nowMs: BASE + 3 * DAY });
    assert.equal(await storage.scores.getEvent(voided.id), null);
    assert.equal(await storage.scores.getEvent(open.id), null);
    assert.deepEqual(await storage.scores.listEvents({ limit: 10 }), []);
    for (const id of ids) assert.equal((await storage.assignments.get(id))?.status, "submitted");
    const table = await storage.scores.getTable();
    assert.equal(table?.rows[0]?.scoring.gate, "no_predictions");
  },
);

adapterTest(
  "a miner past the gates gets rho × edge, as the scorer computes it from the same rows",
  async ({ storage }) => {
    const events = await storeFiveResolvedEvents(storage, RESOLVED_AT);
    await syncMetagraph(storage, [0, 1], { syncedAtMs: FIRST_SEEN });
    const nowMs = BASE + 3 * DAY;
    await runJobOnce(scoringJob(storage), { leases: storage.jobLeases, nowMs });
    const table = (await storage.scores.getTable())!;
    // Five rows resolved together weigh the same: effN = 5, rho = 5 / 15. Edge: 0.36 − 0.09 = 0.27
    // for uid 0 (score 0.09) and 0.36 − 0.25 = 0.11 for uid 1 (score 0.036667).
    const summary = table.rows.map((
      { uid, scoring },
    ) => [uid, scoring.gate, scoring.edge, scoring.rho, scoring.score]);
    assert.deepEqual(summary, [[0, "pass", 0.27, 0.333333, 0.09], [1, "pass", 0.11, 0.333333, 0.036667]]);

    const rows = (await Promise.all(events.map((e) => storage.scores.eventPredictions(e.id)))).flat();
    const predictions = await Promise.all(
      rows.map((row) => storage.assignments.getPrediction(row.agentPredictionId)),
    );
    const scored = await Promise.all(events.map((e) => storage.scores.getEvent(e.id)));
    const input = parseScorerInput({
      computedAt: new Date(table.computedAtMs).toISOString(),
      windowDays: 30,
      events: scored.map((e) => scorerEventOf(e!, e!)),
      predictions: predictions.map((prediction) => scorerPredictionOf(scoringPredictionOf(prediction!))),
      registrations: table.rows.map((row) => ({
        hotkey: row.hotkey,
        uid: row.uid,
        firstSeenAt: new Date(row.firstSeenAtMs).toISOString(),
      })),
      payout: { minerAlphaPerDay: 2952, forecastingWeightShare: 1, alphaUsd: 3 },
    });
    const output = scoreV1(input);
    for (const row of table.rows) assert.deepEqual(row.scoring, output.miners[row.hotkey]!.scoring);
    for (const event of scored) {
      const { stats, marketPWinAtAdmission } = output.events[event!.eventId]!;
      assert.deepEqual({ stats: event!.stats, marketPWinAtAdmission: event!.marketPWinAtAdmission }, {
        stats,
        marketPWinAtAdmission,
      });
    }
  },
);
