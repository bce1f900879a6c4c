import type { Sql } from "postgres";
import { StoreRefusal } from "../store_refusal.ts";
import type {
  Assignment,
  AssignmentTarget,
  PredictionDigest,
  ScoringPrediction,
  StoredPrediction,
} from "../assignment_record.ts";
import type {
  AssignmentStore,
  ClaimOptions,
  ClaimResult,
  EnsureOptions,
  EnsureResult,
  HeldLeaseOptions,
  ListEventOptions,
  ListScoredOptions,
  MarkScoredOptions,
  RetireScope,
  ScoredMarks,
  SubmitOptions,
  SubmitReceipt,
} from "../assignment_store.ts";
import {
  ASSIGNMENT_COLUMNS,
  type AssignmentRow,
  type DigestRow,
  type PredictionRow,
  type ScoringTuple,
  toAssignment,
  toDigest,
  toPrediction,
  toScoringPrediction,
} from "./_pg_assignment_rows.ts";
import { ensureAssignments, retireAssignments } from "./_pg_assignment_queue.ts";
import { claimAssignment, leaseHeld, submitPrediction } from "./_pg_lease_writes.ts";
import {
  assignmentStatus,
  eventsWithUnmarked,
  markPredictions,
  predictionsWithMarks,
} from "./_pg_prediction_marks.ts";
import { pgArray } from "./_pg_array.ts";

/**
 * Assignments and predictions in PostgreSQL. A claim is one call of `claim_assignment` (migration
 * 007: `UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1)` inside one transaction, on
 * the server's clock); a submission is one statement that locks the assignment row, stores the
 * prediction and its trace only when the caller holds the lease, and reports what it saw. Both
 * make a signed request's nonce use in the same statement (`_pg_lease_writes.ts`).
 */
export class PgAssignmentStore implements AssignmentStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  ensure(targets: readonly AssignmentTarget[], options: EnsureOptions = {}): Promise<EnsureResult> {
    return ensureAssignments(this.#sql, targets, options.batchSize);
  }

  retire(scope: RetireScope): Promise<number> {
    return retireAssignments(this.#sql, scope);
  }

  claim(validatorHotkey: string, options: ClaimOptions): Promise<ClaimResult> {
    return claimAssignment(this.#sql, validatorHotkey, options);
  }

  submit(agentPredictionId: string, options: SubmitOptions): Promise<SubmitReceipt> {
    return submitPrediction(this.#sql, agentPredictionId, options);
  }

  async markScored(agentPredictionId: string, options: MarkScoredOptions): Promise<boolean> {
    const [known] = await this.#sql<{ event_id: string }[]>`
      SELECT event_id FROM predictions WHERE agent_prediction_id = ${agentPredictionId}`;
    if (!known) throw new StoreRefusal("not_found", `No prediction ${agentPredictionId}`);
    const mark = { ...options, eventId: known.event_id, agentPredictionIds: [agentPredictionId] };
    return await markPredictions(this.#sql, [mark]) === 1;
  }

  /** One mark row per event and group (`_pg_prediction_marks.ts`), in one transaction. */
  markScoredMany(groups: readonly ScoredMarks[]): Promise<number> {
    return markPredictions(this.#sql, groups);
  }

  async get(agentPredictionId: string): Promise<Assignment | null> {
    const sql = this.#sql;
    const [row] = await sql<AssignmentRow[]>`
      SELECT ${sql(ASSIGNMENT_COLUMNS.filter((column) => column !== "status"))}, ${
      assignmentStatus(sql)
    } AS status
      FROM assignments a WHERE id = ${agentPredictionId}`;
    return row ? toAssignment(row) : null;
  }

  async heldLease(agentPredictionId: string, options: HeldLeaseOptions): Promise<Assignment | null> {
    const sql = this.#sql;
    const [row] = await sql<AssignmentRow[]>`
      SELECT ${sql(ASSIGNMENT_COLUMNS)} FROM assignments t
      WHERE id = ${agentPredictionId} AND ${leaseHeld(sql, options)}`;
    return row ? toAssignment(row) : null;
  }

  async getPrediction(agentPredictionId: string): Promise<StoredPrediction | null> {
    const [row] = await this.#sql<PredictionRow[]>`
      SELECT * FROM ${predictionsWithMarks(this.#sql)} WHERE p.agent_prediction_id = ${agentPredictionId}`;
    return row ? toPrediction(row) : null;
  }

  async getTrace(agentPredictionId: string): Promise<unknown | null> {
    const [row] = await this.#sql<{ trace: unknown }[]>`
      SELECT trace FROM prediction_traces WHERE agent_prediction_id = ${agentPredictionId}`;
    return row ? row.trace : null;
  }

  async listEventPredictions(
    eventId: string,
    { limit, after }: ListEventOptions,
  ): Promise<StoredPrediction[]> {
    const rows = await this.#sql<PredictionRow[]>`
      SELECT * FROM ${predictionsWithMarks(this.#sql)}
      WHERE p.event_id = ${eventId} AND p.agent_prediction_id > ${after ?? ""}
      ORDER BY p.agent_prediction_id LIMIT ${limit}`;
    return rows.map(toPrediction);
  }

  /**
   * Only the fields the scorer reads, out of `reported` (migration 007's JSONB), aggregated into
   * one JSON value (one parse for the batch, not a row object and two JSON columns per prediction).
   */
  async scoringPredictionsOfEvents(eventIds: readonly string[]): Promise<ScoringPrediction[]> {
    if (eventIds.length === 0) return [];
    const [row] = await this.#sql<{ rows: ScoringTuple[] | null }[]>`
      SELECT json_agg(json_build_array(agent_prediction_id, event_id, miner_hotkey, miner_uid, predicted_at_ms,
          reported->'predictedOutcomeId',
          CASE WHEN jsonb_typeof(reported->'confidence') = 'number' THEN reported->'confidence' END,
          reported->'outcomeProbabilities', outcome_prices_at_prediction,
          COALESCE(reported #> '{executionMetadata,predictionIsInvalid}' = 'true'::JSONB, FALSE))
        ORDER BY event_id, agent_prediction_id) AS rows
      FROM predictions WHERE event_id = ANY(${pgArray(eventIds)}::text[])`;
    return (row?.rows ?? []).map(toScoringPrediction);
  }

  /** Two index probes per event: its predictions counted against its marked ids (migration 020). */
  eventsWithUnscored(eventIds: readonly string[]): Promise<string[]> {
    return eventsWithUnmarked(this.#sql, eventIds);
  }

  async eventDigests(eventIds: readonly string[]): Promise<PredictionDigest[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.#sql<DigestRow[]>`
      SELECT event_id, agent_prediction_id, miner_hotkey, miner_uid, predicted_at_ms,
        reported -> 'outcomeProbabilities' AS outcome_probabilities,
        (validation ->> 'isValid')::boolean AS is_valid,
        (validation -> 'reasons') = '["late_prediction"]'::jsonb AS late_only
      FROM predictions WHERE event_id = ANY(${pgArray(eventIds)}::text[])
      ORDER BY event_id, agent_prediction_id`;
    return rows.map(toDigest);
  }

  async eventsPredictedSince(sinceMs: number): Promise<string[]> {
    const rows = await this.#sql<{ event_id: string }[]>`
      SELECT DISTINCT event_id FROM predictions WHERE predicted_at_ms >= ${sinceMs}`;
    return rows.map((row) => row.event_id);
  }

  /**
   * The marks newest resolution first (their index), each with its listed predictions (primary
   * key probes), sorted by id within one resolution time, until the page is full (migration 020).
   * The miners are matched as `"<uid>:<hotkey>"` keys: one hashed lookup per row.
   */
  async listScored(options: ListScoredOptions): Promise<StoredPrediction[]> {
    const sql = this.#sql;
    const { after, miners } = options;
    const rows = await sql<PredictionRow[]>`
      SELECT p.*, m.scored_at_ms, m.resolved_at_ms, m.resolution
      FROM prediction_marks m CROSS JOIN LATERAL unnest(m.agent_prediction_ids) AS u(id)
        JOIN predictions p ON p.agent_prediction_id = u.id
      WHERE m.resolved_at_ms >= ${options.resolvedSinceMs}
        ${
      after
        ? sql`AND m.resolved_at_ms <= ${after.resolvedAtMs} AND (m.resolved_at_ms < ${after.resolvedAtMs}
            OR p.agent_prediction_id > ${after.agentPredictionId})`
        : sql``
    }
        ${
      miners
        ? sql`AND (p.miner_uid || ':' || p.miner_hotkey) = ANY(${
          pgArray(miners.map((m) => `${m.uid}:${m.hotkey}`))
        }::TEXT[])`
        : sql``
    }
      ORDER BY m.resolved_at_ms DESC, p.agent_prediction_id LIMIT ${options.limit}`;
    return rows.map(toPrediction);
  }

  async countLive(validatorHotkey: string): Promise<number> {
    const [row] = await this.#sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM assignments WHERE lease_holder = ${validatorHotkey}
        AND status = 'in_progress' AND lease_expires_at_ms > storage_now_ms()`;
    return row?.n ?? 0;
  }

  async latestRound(eventId: string): Promise<number | null> {
    const [row] = await this.#sql<{ round: number | null }[]>`
      SELECT max(round) AS round FROM assignments WHERE event_id = ${eventId}`;
    return row?.round ?? null;
  }
}
