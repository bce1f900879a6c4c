/**
 * Which predictions are scored, in PostgreSQL (migration 020): one `prediction_marks` row per
 * event and marking call lists the ids it marked, with their resolution. Marking a batch writes
 * one small row per event, where it used to update every prediction and assignment row.
 * Invariant (every write goes through `markScored`): an id is listed at most once, in a mark of
 * its own event, and only when it has a prediction.
 */
import type { Sql } from "postgres";
import type { ScoredMarks } from "../assignment_store.ts";
import { forBatchWrites } from "./_pg_scored_rows.ts";
import { pgArray } from "./_pg_array.ts";

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

/** The groups with their ids that an earlier group does not name already (the first group wins). */
function firstNamed(groups: readonly ScoredMarks[]): ScoredMarks[] {
  const seen = new Set<string>();
  return groups.flatMap((group) => {
    const agentPredictionIds = [...new Set(group.agentPredictionIds)].filter((id) => !seen.has(id));
    for (const id of agentPredictionIds) seen.add(id);
    return agentPredictionIds.length === 0 ? [] : [{ ...group, agentPredictionIds }];
  });
}

/**
 * Marks in one transaction: the groups' events are locked (advisory locks in event id order, so
 * two markers never deadlock and never both mark an id), then one statement inserts, per group,
 * a mark of its event listing the group's ids that are predictions of that event and have no
 * mark yet: per group, the event's marked ids (by their key), then its listed predictions (the
 * event's index range, probed for the listed ids).
 * Returns how many ids were newly marked.
 */
export async function markPredictions(sql: Sql, groups: readonly ScoredMarks[]): Promise<number> {
  const marks = firstNamed(groups);
  if (marks.length === 0) return 0;
  const events = [...new Set(marks.map((group) => group.eventId))].sort();
  return await sql.begin(async (tx) => {
    await forBatchWrites(tx);
    await tx`SELECT pg_advisory_xact_lock(${MARK_LOCK}, hashtext(e)) FROM unnest(${
      pgArray(events)
    }::TEXT[]) AS e`;
    const [row] = await tx<{ marked: number }[]>`
      WITH fresh AS (
        SELECT g.ord, g."eventId" AS event_id, g."scoredAtMs" AS scored_at_ms, g."resolvedAtMs" AS resolved_at_ms,
          g.resolution, ARRAY(
            SELECT p.agent_prediction_id FROM predictions p
            WHERE p.event_id = g."eventId" AND p.agent_prediction_id = ANY(w.ids)
              AND NOT p.agent_prediction_id = ANY(w.marked)
            ORDER BY p.agent_prediction_id) AS ids
        FROM json_to_recordset(${JSON.stringify(marks.map((mark, ord) => ({ ...mark, ord })))}::TEXT::JSON)
          AS g("eventId" TEXT, "agentPredictionIds" JSON, "scoredAtMs" BIGINT, "resolvedAtMs" BIGINT,
            resolution JSONB, ord INTEGER)
          CROSS JOIN LATERAL (SELECT ARRAY(SELECT json_array_elements_text(g."agentPredictionIds")) AS ids,
            ARRAY(SELECT unnest(s.agent_prediction_ids) FROM prediction_marks s WHERE s.event_id = g."eventId")
              AS marked) w
      ), inserted AS (
        INSERT INTO prediction_marks (event_id, mark_no, scored_at_ms, resolved_at_ms, resolution,
          agent_prediction_ids)
        SELECT f.event_id,
          COALESCE((SELECT max(s.mark_no) FROM prediction_marks s WHERE s.event_id = f.event_id), 0)
            + row_number() OVER (PARTITION BY f.event_id ORDER BY f.ord),
          f.scored_at_ms, f.resolved_at_ms, f.resolution, f.ids
        FROM fresh f WHERE cardinality(f.ids) > 0
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
    SELECT e.event_id FROM unnest(${pgArray(eventIds)}::TEXT[]) AS e(event_id)
    WHERE (SELECT count(*) FROM predictions p WHERE p.event_id = e.event_id)
      > (SELECT COALESCE(sum(cardinality(m.agent_prediction_ids)), 0) FROM prediction_marks m
        WHERE m.event_id = e.event_id)`;
  return rows.map((row) => row.event_id);
}
