/**
 * Migration 020 on a database scored the old way (predictions and assignments marked row by row,
 * one `scored_predictions` row each): the marks move to `prediction_marks` with their scored
 * times, statuses still read `scored`, and the next scoring run stores every event's rows again
 * without marking anything twice.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { openPgStorage } from "../../storage/postgres/pg_storage.ts";
import { createScratchDatabase } from "../../scripts/bench/world/scratch_database.ts";
import { eventId, eventRecord, seedDatabase } from "../../scripts/bench/world/scoring_world.ts";
import { PgliteServer } from "../support/pglite_server.ts";
import { minerHotkey } from "../support/assignments.ts";
import { runJobOnce } from "../support/jobs.ts";
import { scoringJob, syncMetagraph } from "../scoring/job_fixtures.ts";

const MIGRATIONS = new URL("../../storage/postgres/migrations/", import.meta.url);
const NOW = Date.UTC(2026, 10, 20, 12);
const SIZE = { events: 3, miners: 5, perEvent: 4 };
const OLD_SCORED_AT = NOW - 3_600_000;

/** An empty database: a scratch one on the server at DATABASE_URL, else an embedded PGlite. */
async function emptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = Deno.env.get("DATABASE_URL");
  if (server) return await createScratchDatabase(server, { prefix: "fgw_test_" });
  const db = await PGlite.create();
  const pglite = new PgliteServer(db);
  return { url: pglite.url, drop: async () => (await pglite.close(), await db.close()) };
}

/** Applies the migrations before 020, as a database made before it has them. */
async function migrateBefore020(sql: postgres.Sql): Promise<void> {
  await sql`CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`;
  const names = [...Deno.readDirSync(MIGRATIONS)].map((entry) => entry.name).filter((name) => name < "020")
    .sort();
  for (const name of names) {
    await sql.unsafe(await Deno.readTextFile(new URL(name, MIGRATIONS)));
    await sql`INSERT INTO schema_migrations (name) VALUES (${name})`;
  }
}

/** Events 0 and 1 scored the old way (their rows and marks), event 2 not yet. */
async function scoreTheOldWay(sql: postgres.Sql): Promise<void> {
  for (const e of [0, 1]) {
    const event = eventRecord(e, NOW);
    const resolution = {
      resolutionStatus: "resolved",
      resolvedOutcomeId: event.resolution.winningOutcomeId,
      finalOutcomePrices: event.resolution.finalOutcomePrices,
    };
    const resolvedAtMs = Date.parse(event.resolution.resolvedAt!);
    await sql`UPDATE predictions SET scored_at_ms = ${OLD_SCORED_AT}, resolved_at_ms = ${resolvedAtMs},
      resolution = ${JSON.stringify(resolution)}::TEXT::JSONB WHERE event_id = ${event.id}`;
    await sql`UPDATE assignments SET status = 'scored' WHERE event_id = ${event.id}`;
    await sql`INSERT INTO scored_predictions (agent_prediction_id, event_id, miner_hotkey, miner_uid,
        resolved_at_ms, counted, record)
      SELECT agent_prediction_id, event_id, miner_hotkey, miner_uid, ${resolvedAtMs}, TRUE, '{}'::JSONB
      FROM predictions WHERE event_id = ${event.id}`;
    const record = {
      eventId: event.id,
      source: event.source,
      sourceMarketId: event.sourceMarketId,
      question: event.question,
      outcomes: event.outcomes,
      endDate: event.endDate,
      outcomePricesAtAdmission: event.outcomePricesAtAdmission,
      resolvedAtMs,
      winningOutcomeId: event.resolution.winningOutcomeId,
      scoredAtMs: OLD_SCORED_AT,
      marketPWinAtAdmission: 0.5,
      stats: { scored: 4, valid: 4, meanBrier: 0.2, calledRate: 0.5, bestUid: 1 },
    };
    await sql`INSERT INTO scored_events (event_id, resolved_at_ms, record)
      VALUES (${event.id}, ${resolvedAtMs}, ${JSON.stringify(record)}::TEXT::JSONB)`;
  }
  await sql`INSERT INTO settings (name, value) VALUES ('scoring_progress', '{"feed":null,"watch":{}}')`;
}

Deno.test("migration 020 keeps every mark and scored time, and the next run restores the scored rows", async () => {
  const database = await emptyDatabase();
  try {
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    await migrateBefore020(sql);
    const hotkeys = Array.from({ length: SIZE.miners }, (_, uid) => minerHotkey(uid));
    await seedDatabase(sql, SIZE, hotkeys, NOW);
    await scoreTheOldWay(sql);
    await sql.end();

    const storage = await openPgStorage(database.url, { maxConnections: 2 });
    try {
      const ids = (e: number) => Array.from({ length: SIZE.perEvent }, (_, k) => `ap-${eventId(e)}-0${k}`);
      const statuses = async (e: number) =>
        (await Promise.all(ids(e).map((id) => storage.assignments.get(id)))).map((a) => a?.status);
      assert.deepEqual(await statuses(0), ["scored", "scored", "scored", "scored"]);
      assert.deepEqual(await statuses(2), ["submitted", "submitted", "submitted", "submitted"]);
      const marked = await storage.assignments.getPrediction(ids(1)[2]!);
      assert.equal(marked?.scored?.scoredAtMs, OLD_SCORED_AT);
      assert.deepEqual(await storage.assignments.eventsWithUnscored([0, 1, 2].map(eventId)), [eventId(2)]);
      assert.equal(await storage.settings.get("scoring_progress"), null);
      assert.deepEqual(await storage.scores.eventPredictions(eventId(0)), []);

      await syncMetagraph(storage, hotkeys.map((_, uid) => uid), { syncedAtMs: NOW - 86_400_000 });
      await runJobOnce(scoringJob(storage), { leases: storage.jobLeases, nowMs: NOW });
      for (const e of [0, 1, 2]) {
        const rows = await storage.scores.eventPredictions(eventId(e));
        assert.deepEqual(rows.map((row) => row.agentPredictionId), ids(e));
        assert.equal((await storage.scores.getEvent(eventId(e)))?.marketPWinAtAdmission !== -1, true);
      }
      assert.equal((await storage.assignments.getPrediction(ids(1)[2]!))?.scored?.scoredAtMs, OLD_SCORED_AT);
      assert.equal((await storage.assignments.getPrediction(ids(2)[0]!))?.scored?.scoredAtMs, NOW);
      assert.deepEqual(await statuses(2), ["scored", "scored", "scored", "scored"]);
      assert.deepEqual(await storage.assignments.eventsWithUnscored([0, 1, 2].map(eventId)), []);
      assert.equal((await storage.scores.getTable())?.rows.length, SIZE.miners);
    } finally {
      await storage.close();
    }
  } finally {
    await database.drop();
  }
});
