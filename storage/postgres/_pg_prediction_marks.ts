/**
 * Which predictions are scored, in PostgreSQL (migration 020): one `prediction_marks` row per
 * event and marking call lists the ids it marked, with their resolution. Marking a batch writes
 * one small row per event, where it used to update every prediction and assignment row.
 * Invariant (every write goes through `markScored`): an id is listed at most once, in a mark of
 * its own event, and only when it has a prediction.
 */
import type { Sql } from "postgres";
import type { ScoredMarks } from "../assignment_store.ts";
import { jsonParam } from "./_pg_assignment_rows.ts";

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
 * Marks in one transaction: the marked ids' events are locked (advisory locks in event order, so
 * two markers never deadlock and never both mark an id), then one statement inserts, per event
 * and group, a mark listing the group's ids that have a prediction and no mark yet (an id in two
 * groups goes with the first). Returns how many ids were newly marked.
 */
export async function markPredictions(sql: Sql, groups: readonly ScoredMarks[]): Promise<number> {
  const ids = [...new Set(groups.flatMap((group) => group.agentPredictionIds))];
  if (ids.length === 0) return 0;
  return await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MARK_LOCK}, hashtext(e.event_id)) FROM (
        SELECT DISTINCT event_id FROM predictions WHERE agent_prediction_id = ANY(${ids}::TEXT[])
        ORDER BY event_id) e`;
    const [row] = await tx<{ marked: number }[]>`
      WITH wanted AS (
        SELECT m.id, g.ord, (g.g->>'scoredAtMs')::BIGINT AS scored_at_ms,
          (g.g->>'resolvedAtMs')::BIGINT AS resolved_at_ms, g.g->'resolution' AS resolution
        FROM jsonb_array_elements(${jsonParam(sql, groups)}) WITH ORDINALITY AS g(g, ord)
          CROSS JOIN LATERAL jsonb_array_elements_text(g.g->'agentPredictionIds') AS m(id)
      ), fresh AS (
        SELECT DISTINCT ON (p.agent_prediction_id) p.event_id, p.agent_prediction_id, w.ord, w.scored_at_ms,
          w.resolved_at_ms, w.resolution
        FROM wanted w JOIN predictions p ON p.agent_prediction_id = w.id
        WHERE NOT EXISTS (SELECT 1 FROM prediction_marks s
          WHERE s.event_id = p.event_id AND p.agent_prediction_id = ANY(s.agent_prediction_ids))
        ORDER BY p.agent_prediction_id, w.ord
      ), grouped AS (
        SELECT event_id, ord, scored_at_ms, resolved_at_ms, resolution,
          array_agg(agent_prediction_id ORDER BY agent_prediction_id) AS ids
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
