import type { Sql } from "postgres";
import { agentPredictionId, type AssignmentTarget, distinctTargets } from "../assignment_record.ts";
import type { EnsureResult, RetireScope } from "../assignment_store.ts";
import { pgArray } from "./_pg_array.ts";

/** Targets per round trip, by default and at most (every batch's arrays travel five times). */
const DEFAULT_BATCH = 500;
const MAX_BATCH = 5_000;

/** Unleased: available, or in progress with an expired lease (on the server's clock). */
const UNLEASED =
  "(a.status = 'available' OR (a.status = 'in_progress' AND a.lease_expires_at_ms <= storage_now_ms()))";

/** Each column of a batch of targets as an array literal (_pg_array.ts), for `unnest`. */
function columns(batch: readonly AssignmentTarget[]) {
  const column = (pick: (target: AssignmentTarget) => string | number) => pgArray(batch.map(pick));
  return {
    ids: column((target) => agentPredictionId({ ...target, round: target.round ?? 0 })),
    versions: column((target) => target.agentVersionId),
    eventIds: column((target) => target.eventId),
    rounds: column((target) => target.round ?? 0),
    hotkeys: column((target) => target.minerHotkey),
    uids: column((target) => target.minerUid),
    endsAt: column((target) => target.eventEndsAtMs),
    uploadedAt: column((target) => target.agentUploadedAtMs),
  };
}

/**
 * One batch in one pipelined transaction (one round trip): record each miner's newest version
 * (a miner that gains work joins the round-robin at the fewest leases of the miners that have
 * work), retire the unleased assignments of its older versions, insert what is missing, revive
 * retired assignments and refresh a changed uid or event end, and count targets of an older version.
 */
async function ensureBatch(sql: Sql, batch: readonly AssignmentTarget[]): Promise<EnsureResult> {
  const c = columns(batch);
  const input = sql`unnest(${c.ids}::text[], ${c.versions}::text[], ${c.eventIds}::text[],
    ${c.rounds}::int[], ${c.hotkeys}::text[], ${c.uids}::int[], ${c.endsAt}::bigint[])
    AS t(id, version, event_id, round, hotkey, uid, ends_at)`;
  const [, superseded, created, updated, stale] = await sql.begin((tx) => [
    tx`INSERT INTO assignment_miners (miner_hotkey, agent_version_id, agent_uploaded_at_ms, eligible, leased_count)
      SELECT DISTINCT ON (h.hotkey) h.hotkey, h.version, h.uploaded_at, true, f.floor
      FROM unnest(${c.hotkeys}::text[], ${c.versions}::text[], ${c.uploadedAt}::bigint[])
        AS h(hotkey, version, uploaded_at)
        CROSS JOIN (SELECT assignment_turn_floor(storage_now_ms()) AS floor) f
      ORDER BY h.hotkey, h.uploaded_at DESC, h.version DESC
      ON CONFLICT (miner_hotkey) DO UPDATE SET agent_version_id = EXCLUDED.agent_version_id,
        agent_uploaded_at_ms = EXCLUDED.agent_uploaded_at_ms, eligible = true,
        leased_count = GREATEST(assignment_miners.leased_count, EXCLUDED.leased_count)
      WHERE (EXCLUDED.agent_uploaded_at_ms, EXCLUDED.agent_version_id)
        >= (assignment_miners.agent_uploaded_at_ms, assignment_miners.agent_version_id)`,
    tx`UPDATE assignments a SET status = 'retired' FROM assignment_miners m
      WHERE m.miner_hotkey = ANY(${c.hotkeys}::text[]) AND a.miner_hotkey = m.miner_hotkey
        AND a.agent_version_id <> m.agent_version_id AND ${sql.unsafe(UNLEASED)}`,
    tx`INSERT INTO assignments (id, agent_version_id, event_id, round, miner_hotkey, miner_uid,
        event_ends_at_ms, status, created_at_ms)
      SELECT t.id, t.version, t.event_id, t.round, t.hotkey, t.uid, t.ends_at, 'available', storage_now_ms()
      FROM ${input} JOIN assignment_miners m ON m.miner_hotkey = t.hotkey AND m.agent_version_id = t.version
      ON CONFLICT (id) DO NOTHING`,
    tx<{ was_retired: boolean }[]>`UPDATE assignments a SET
        status = CASE WHEN old.status = 'retired' THEN 'available' ELSE old.status END,
        miner_uid = t.uid, event_ends_at_ms = t.ends_at
      FROM ${input} JOIN assignment_miners m ON m.miner_hotkey = t.hotkey AND m.agent_version_id = t.version
        JOIN assignments old ON old.id = t.id
      WHERE a.id = t.id AND (old.status = 'retired' OR old.miner_uid <> t.uid OR old.event_ends_at_ms <> t.ends_at)
      RETURNING old.status = 'retired' AS was_retired`,
    tx<{ n: number }[]>`SELECT count(*)::int AS n FROM ${input}
      JOIN assignment_miners m ON m.miner_hotkey = t.hotkey AND m.agent_version_id <> t.version`,
  ]);
  return {
    created: created.count,
    revived: updated.filter((row) => row.was_retired).length,
    superseded: superseded.count,
    stale: stale[0]?.n ?? 0,
  };
}

export async function ensureAssignments(
  sql: Sql,
  targets: readonly AssignmentTarget[],
  batchSize = DEFAULT_BATCH,
): Promise<EnsureResult> {
  targets = distinctTargets(targets);
  const size = Math.max(1, Math.min(MAX_BATCH, Math.floor(batchSize)));
  const total: EnsureResult = { created: 0, revived: 0, superseded: 0, stale: 0 };
  for (let start = 0; start < targets.length; start += size) {
    const result = await ensureBatch(sql, targets.slice(start, start + size));
    total.created += result.created;
    total.revived += result.revived;
    total.superseded += result.superseded;
    total.stale += result.stale;
  }
  return total;
}

/**
 * Retires the unleased assignments of `scope` (available ones and those whose lease has expired),
 * one statement per part so that each reads its own index, in one pipelined transaction; miners
 * are marked ineligible before their assignments are touched (the lock order of docs/assignments.md).
 */
export async function retireAssignments(sql: Sql, scope: RetireScope): Promise<number> {
  const eventIds = [...(scope.eventIds ?? [])];
  const hotkeys = [...(scope.minerHotkeys ?? [])];
  const unleased = sql.unsafe(UNLEASED);
  if (eventIds.length === 0 && hotkeys.length === 0 && !scope.ended) return 0;
  const [events, miners] = [pgArray(eventIds), pgArray(hotkeys)];
  if (hotkeys.length > 0) {
    await sql`UPDATE assignment_miners SET eligible = false WHERE miner_hotkey = ANY(${miners}::text[])`;
  }
  const results = await sql.begin((tx) => [
    ...(eventIds.length > 0
      ? [
        tx`UPDATE assignments a SET status = 'retired' WHERE a.event_id = ANY(${events}::text[]) AND ${unleased}`,
      ]
      : []),
    ...(hotkeys.length > 0
      ? [
        tx`UPDATE assignments a SET status = 'retired' WHERE a.miner_hotkey = ANY(${miners}::text[]) AND ${unleased}`,
      ]
      : []),
    ...(scope.ended
      ? [
        tx`UPDATE assignments a SET status = 'retired'
          WHERE a.status = 'available' AND a.event_ends_at_ms <= storage_now_ms()`,
        tx`UPDATE assignments a SET status = 'retired' WHERE a.status = 'in_progress'
          AND a.lease_expires_at_ms <= storage_now_ms() AND a.event_ends_at_ms <= storage_now_ms()`,
      ]
      : []),
  ]);
  return results.reduce((sum, result) => sum + result.count, 0);
}
