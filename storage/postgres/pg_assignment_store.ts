import type { Sql } from "postgres";
import { StoreRefusal } from "../store_refusal.ts";
import type {
  Assignment,
  AssignmentTarget,
  PredictionDigest,
  StoredPrediction,
} from "../assignment_record.ts";
import type {
  AssignmentStore,
  ClaimOptions,
  ClaimResult,
  EnsureOptions,
  EnsureResult,
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
  jsonParam,
  type PredictionRow,
  toAssignment,
  toDigest,
  toPrediction,
} from "./_pg_assignment_rows.ts";
import { ensureAssignments, retireAssignments } from "./_pg_assignment_queue.ts";
import { claimAssignment, submitPrediction } from "./_pg_lease_writes.ts";

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
    const [row] = await this.#sql<{ marked: boolean; known: boolean }[]>`
      WITH scored AS (
        UPDATE assignments SET status = 'scored' WHERE id = ${agentPredictionId} AND status = 'submitted'
        RETURNING id
      ), marked AS (
        UPDATE predictions SET scored_at_ms = ${options.scoredAtMs}, resolved_at_ms = ${options.resolvedAtMs},
          resolution = ${jsonParam(this.#sql, options.resolution)}
        WHERE agent_prediction_id IN (SELECT id FROM scored) AND scored_at_ms IS NULL
        RETURNING agent_prediction_id
      )
      SELECT EXISTS (SELECT 1 FROM marked) AS marked,
        EXISTS (SELECT 1 FROM predictions WHERE agent_prediction_id = ${agentPredictionId}) AS known`;
    if (!row?.known) throw new StoreRefusal("not_found", `No prediction ${agentPredictionId}`);
    return row.marked;
  }

  /**
   * One statement: the (id, resolution) pairs unnested from one JSON parameter, the assignments
   * set `scored`, then their predictions marked.
   */
  async markScoredMany(groups: readonly ScoredMarks[]): Promise<number> {
    const marks = groups.filter((group) => group.agentPredictionIds.length > 0);
    if (marks.length === 0) return 0;
    const [row] = await this.#sql<{ marked: number }[]>`
      WITH marks AS (
        SELECT m.id, (g->>'scoredAtMs')::BIGINT AS scored_at_ms, (g->>'resolvedAtMs')::BIGINT AS resolved_at_ms,
          g->'resolution' AS resolution
        FROM jsonb_array_elements(${jsonParam(this.#sql, marks)}) AS g
          CROSS JOIN LATERAL jsonb_array_elements_text(g->'agentPredictionIds') AS m(id)
      ), scored AS (
        UPDATE assignments a SET status = 'scored' FROM marks m
        WHERE a.id = m.id AND a.status = 'submitted'
        RETURNING a.id
      ), marked AS (
        UPDATE predictions p SET scored_at_ms = m.scored_at_ms, resolved_at_ms = m.resolved_at_ms,
          resolution = m.resolution
        FROM marks m JOIN scored s ON s.id = m.id
        WHERE p.agent_prediction_id = m.id AND p.scored_at_ms IS NULL
        RETURNING p.agent_prediction_id
      )
      SELECT count(*)::INTEGER AS marked FROM marked`;
    return row?.marked ?? 0;
  }

  async get(agentPredictionId: string): Promise<Assignment | null> {
    const [row] = await this.#sql<AssignmentRow[]>`
      SELECT ${this.#sql(ASSIGNMENT_COLUMNS)} FROM assignments WHERE id = ${agentPredictionId}`;
    return row ? toAssignment(row) : null;
  }

  async getPrediction(agentPredictionId: string): Promise<StoredPrediction | null> {
    const [row] = await this.#sql<PredictionRow[]>`
      SELECT * FROM predictions WHERE agent_prediction_id = ${agentPredictionId}`;
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
      SELECT * FROM predictions WHERE event_id = ${eventId} AND agent_prediction_id > ${after ?? ""}
      ORDER BY agent_prediction_id LIMIT ${limit}`;
    return rows.map(toPrediction);
  }

  async listPredictionsOfEvents(eventIds: readonly string[]): Promise<StoredPrediction[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.#sql<PredictionRow[]>`
      SELECT * FROM predictions WHERE event_id = ANY(${[...eventIds]}::text[])
      ORDER BY event_id, agent_prediction_id`;
    return rows.map(toPrediction);
  }

  /** An index-only probe of the partial index of unscored predictions (migration 018). */
  async eventsWithUnscored(eventIds: readonly string[]): Promise<string[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.#sql<{ event_id: string }[]>`
      SELECT DISTINCT event_id FROM predictions
      WHERE event_id = ANY(${[...eventIds]}::text[]) AND scored_at_ms IS NULL`;
    return rows.map((row) => row.event_id);
  }

  async eventDigests(eventIds: readonly string[]): Promise<PredictionDigest[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.#sql<DigestRow[]>`
      SELECT event_id, agent_prediction_id, miner_hotkey, miner_uid, predicted_at_ms,
        reported -> 'outcomeProbabilities' AS outcome_probabilities,
        (validation ->> 'isValid')::boolean AS is_valid
      FROM predictions WHERE event_id = ANY(${[...eventIds]}::text[])
      ORDER BY event_id, agent_prediction_id`;
    return rows.map(toDigest);
  }

  async eventsPredictedSince(sinceMs: number): Promise<string[]> {
    const rows = await this.#sql<{ event_id: string }[]>`
      SELECT DISTINCT event_id FROM predictions WHERE predicted_at_ms >= ${sinceMs}`;
    return rows.map((row) => row.event_id);
  }

  async listScored(options: ListScoredOptions): Promise<StoredPrediction[]> {
    const sql = this.#sql;
    const { after, miners } = options;
    const rows = await sql<PredictionRow[]>`
      SELECT * FROM predictions
      WHERE scored_at_ms IS NOT NULL AND resolved_at_ms >= ${options.resolvedSinceMs}
        ${
      after
        ? sql`AND (resolved_at_ms < ${after.resolvedAtMs}
            OR (resolved_at_ms = ${after.resolvedAtMs} AND agent_prediction_id > ${after.agentPredictionId}))`
        : sql``
    }
        ${
      miners
        ? sql`AND (miner_hotkey, miner_uid) IN (SELECT * FROM unnest(
            ${miners.map((miner) => miner.hotkey)}::text[], ${miners.map((miner) => miner.uid)}::int[]))`
        : sql``
    }
      ORDER BY resolved_at_ms DESC, agent_prediction_id LIMIT ${options.limit}`;
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
