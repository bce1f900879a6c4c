/**
 * Which predictions are scored, in PostgreSQL (migration 020): one `prediction_marks` row per
 * event and marking call lists the ids it marked, with their resolution. Marking a batch writes
 * one small row per event, where it used to update every prediction and assignment row.
 * Invariant (every write goes through `markScored`): an id is listed at most once, in a mark of
 * its own event, and only when it has a prediction.
 */
import type { Sql } from "postgres";
import type { ScoredMarks } from "../assignment_store.ts";

/** Advisory lock class of an event's marks (the second key is `hashtext(event_id)`). */
const MARK_LOCK = 7020;

/**
 * `predictions p` with the columns of its mark (`scored_at_ms`, `resolved_at_ms`, `resolution`;
 * null when not scored): what every read of a stored prediction selects from.
 */
export function predictionsWithMarks(sql: Sql) {
  return sql`predictions p LEFT JOIN LATERAL (
      SELECT m.scored_at_ms, m.resolved_at_ms, m.resolution FROM prediction_marks m
      WHERE m.event_id = p.event_id AND p.agent_prediction_id = ANY(m.agent_prediction_ids) LIMIT 1
    ) m ON TRUE`;
}

/** The `status` of assignment `a`: `scored` once its prediction is marked, else as stored. */
export function assignmentStatus(sql: Sql) {
  return sql`CASE WHEN a.status = 'submitted' AND EXISTS (SELECT 1 FROM prediction_marks m
      WHERE m.event_id = a.event_id AND a.id = ANY(m.agent_prediction_ids)) THEN 'scored' ELSE a.status END`;
}

/**
 * Marks in one transaction: the groups' events are locked (advisory locks in event id order, so
 * two markers never deadlock and never both mark an id), then one statement inserts, per group,
 * a mark of its event listing the group's ids that are predictions of that event and have no
 * mark yet (an id in two groups goes with the first). The events' predictions and marks are read
 * by event (index ranges), never id by id. Returns how many ids were newly marked.
 */
export async function markPredictions(sql: Sql, groups: readonly ScoredMarks[]): Promise<number> {
  const marks = groups.filter((group) => group.agentPredictionIds.length > 0);
  if (marks.length === 0) return 0;
  const events = [...new Set(marks.map((group) => group.eventId))].sort();
  return await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MARK_LOCK}, hashtext(e)) FROM unnest(${events}::TEXT[]) AS e`;
    const [row] = await tx<{ marked: number }[]>`
      WITH wanted AS (
        SELECT g.ord, g.g->>'eventId' AS event_id, m.id, (g.g->>'scoredAtMs')::BIGINT AS scored_at_ms,
          (g.g->>'resolvedAtMs')::BIGINT AS resolved_at_ms, (g.g->'resolution')::JSONB AS resolution
        FROM json_array_elements(${JSON.stringify(marks)}::TEXT::JSON) WITH ORDINALITY AS g(g, ord)
          CROSS JOIN LATERAL json_array_elements_text(g.g->'agentPredictionIds') AS m(id)
      ), known AS (
        SELECT p.event_id, p.agent_prediction_id FROM predictions p WHERE p.event_id = ANY(${events}::TEXT[])
      ), marked AS (
        SELECT s.event_id, u.id FROM prediction_marks s CROSS JOIN LATERAL unnest(s.agent_prediction_ids) AS u(id)
        WHERE s.event_id = ANY(${events}::TEXT[])
      ), fresh AS (
        SELECT DISTINCT ON (w.id) w.event_id, w.id, w.ord, w.scored_at_ms, w.resolved_at_ms, w.resolution
        FROM wanted w JOIN known k ON k.event_id = w.event_id AND k.agent_prediction_id = w.id
        WHERE NOT EXISTS (SELECT 1 FROM marked d WHERE d.event_id = w.event_id AND d.id = w.id)
        ORDER BY w.id, w.ord
      ), grouped AS (
        SELECT event_id, ord, scored_at_ms, resolved_at_ms, resolution, array_agg(id ORDER BY id) AS ids
        FROM fresh GROUP BY event_id, ord, scored_at_ms, resolved_at_ms, resolution
      ), inserted AS (
        INSERT INTO prediction_marks (event_id, mark_no, scored_at_ms, resolved_at_ms, resolution,
          agent_prediction_ids)
        SELECT g.event_id,
          COALESCE((SELECT max(s.mark_no) FROM prediction_marks s WHERE s.event_id = g.event_id), 0)
            + row_number() OVER (PARTITION BY g.event_id ORDER BY g.ord),
          g.scored_at_ms, g.resolved_at_ms, g.resolution, g.ids
        FROM grouped g
        RETURNING cardinality(agent_prediction_ids) AS n
      )
      SELECT COALESCE(sum(n), 0)::INTEGER AS marked FROM inserted`;
    return row?.marked ?? 0;
  });
}

/**
 * Those of `eventIds` with a prediction not yet marked: more predictions than marked ids (the
 * invariant above makes the counts exact). Two index probes per event.
 */
export async function eventsWithUnmarked(sql: Sql, eventIds: readonly string[]): Promise<string[]> {
  if (eventIds.length === 0) return [];
  const rows = await sql<{ event_id: string }[]>`
    SELECT e.event_id FROM unnest(${[...eventIds]}::TEXT[]) AS e(event_id)
    WHERE (SELECT count(*) FROM predictions p WHERE p.event_id = e.event_id)
      > (SELECT COALESCE(sum(cardinality(m.agent_prediction_ids)), 0) FROM prediction_marks m
        WHERE m.event_id = e.event_id)`;
  return rows.map((row) => row.event_id);
}
