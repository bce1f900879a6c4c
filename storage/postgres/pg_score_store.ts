import type { Sql, TransactionSql } from "postgres";
import type { Fence } from "../job_lease_store.ts";
import type {
  ListScoredEventsOptions,
  ScoredEventPosition,
  ScoredEventRecord,
  ScoredEventWrite,
  ScoredPredictionRecord,
  ScoreStore,
  ScoreTable,
  ScoreTableRow,
  WindowPage,
  WindowRow,
} from "../score_store.ts";
import {
  recordOf,
  ROW_COLUMNS,
  type RowColumns,
  upsertRows,
  type WindowColumns,
  windowRowOf,
} from "./_pg_scored_rows.ts";

type Json = Parameters<Sql["json"]>[0];

/** The scoring job's results in PostgreSQL (migrations `012_scores.sql`, `020_scoring_by_event.sql`). */
export class PgScoreStore implements ScoreStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * One transaction that first reads the lease row FOR SHARE (a takeover waits for it; one
   * committed first leaves no row): the batch's events' rows no longer listed are deleted, the
   * others upserted (one statement, a column array each), then the events. Rows and events that
   * did not change are not rewritten.
   */
  async putEventsFenced(events: readonly ScoredEventWrite[], options: { fence: Fence }): Promise<boolean> {
    return await this.#sql.begin(async (tx) => {
      if (!await holdsFence(tx, options.fence)) return false;
      if (events.length === 0) return true;
      const eventIds = events.map(({ event }) => event.eventId);
      const rows = events.flatMap(({ predictions }) => predictions);
      const ids = rows.map((row) => row.agentPredictionId);
      await tx`DELETE FROM scored_predictions WHERE event_id = ANY(${tx.array(eventIds)}::TEXT[])
        AND agent_prediction_id NOT IN (SELECT unnest(${tx.array(ids)}::TEXT[]))`;
      if (rows.length > 0) await upsertRows(tx, rows);
      const records = events.map(({ event }) => event);
      await tx`INSERT INTO scored_events (event_id, resolved_at_ms, record)
        SELECT r->>'eventId', (r->>'resolvedAtMs')::BIGINT, r
        FROM jsonb_array_elements(${tx.json(records as unknown as Json)}) AS r
        ON CONFLICT (event_id) DO UPDATE SET resolved_at_ms = EXCLUDED.resolved_at_ms, record = EXCLUDED.record
        WHERE scored_events.record IS DISTINCT FROM EXCLUDED.record`;
      return true;
    });
  }

  async getEvent(eventId: string): Promise<ScoredEventRecord | null> {
    const [row] = await this.#sql<{ record: ScoredEventRecord }[]>`
      SELECT record FROM scored_events WHERE event_id = ${eventId}`;
    return row?.record ?? null;
  }

  async getEvents(eventIds: readonly string[]): Promise<ScoredEventRecord[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.#sql<{ record: ScoredEventRecord }[]>`
      SELECT record FROM scored_events WHERE event_id = ANY(${this.#sql.array([...eventIds])}::TEXT[])`;
    return rows.map((row) => row.record);
  }

  async predictionsOfEvents(eventIds: readonly string[]): Promise<ScoredPredictionRecord[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.#sql<RowColumns[]>`
      SELECT ${this.#sql(ROW_COLUMNS)} FROM scored_predictions
      WHERE event_id = ANY(${this.#sql.array([...eventIds])}::TEXT[])
      ORDER BY event_id, agent_prediction_id`;
    return rows.map(recordOf);
  }

  async eventPredictions(
    eventId: string,
    options: { countedOnly?: boolean } = {},
  ): Promise<ScoredPredictionRecord[]> {
    const countedOnly = options.countedOnly ?? false;
    const rows = await this.#sql<RowColumns[]>`
      SELECT ${this.#sql(ROW_COLUMNS)} FROM scored_predictions
      WHERE event_id = ${eventId} AND (counted OR NOT ${countedOnly}::BOOLEAN)
      ORDER BY agent_prediction_id`;
    return rows.map(recordOf);
  }

  async listEvents(options: ListScoredEventsOptions): Promise<ScoredEventRecord[]> {
    const sql = this.#sql;
    const { after, miner } = options;
    const uid = miner?.uid ?? null;
    const rows = await sql<{ record: ScoredEventRecord }[]>`
      SELECT e.record FROM scored_events e
      WHERE TRUE
      ${
      after
        ? sql`AND (e.resolved_at_ms < ${after.resolvedAtMs}
            OR (e.resolved_at_ms = ${after.resolvedAtMs} AND e.event_id > ${after.eventId}))`
        : sql``
    }
      ${
      miner
        ? sql`AND EXISTS (SELECT 1 FROM scored_predictions p
            WHERE p.event_id = e.event_id AND p.counted AND p.miner_hotkey = ${miner.hotkey}
              AND (${uid}::INTEGER IS NULL OR p.miner_uid = ${uid}))`
        : sql``
    }
      ORDER BY e.resolved_at_ms DESC, e.event_id LIMIT ${options.limit}`;
    return rows.map((row) => row.record);
  }

  /**
   * One statement: the page's events (a top-N of the window's events after the position), each
   * with its counted rows (an event without any still moves the position).
   */
  async windowRows(page: WindowPage): Promise<{ rows: WindowRow[]; next: ScoredEventPosition | null }> {
    const { after } = page;
    const afterMs = after?.resolvedAtMs ?? page.resolvedAfterMs;
    const rows = await this.#sql<WindowColumns[]>`
      WITH page AS (
        SELECT event_id, resolved_at_ms FROM scored_events
        WHERE resolved_at_ms > ${page.resolvedAfterMs} AND resolved_at_ms <= ${page.resolvedUntilMs}
          AND (resolved_at_ms, event_id) > (${afterMs}::BIGINT, ${after?.eventId ?? ""}::TEXT)
        ORDER BY resolved_at_ms, event_id LIMIT ${page.events}
      )
      SELECT e.event_id, e.resolved_at_ms, p.miner_hotkey, p.miner_uid, p.brier, p.market_brier, p.called,
        p.p_predicted, p.stake_return
      FROM page e LEFT JOIN scored_predictions p ON p.event_id = e.event_id AND p.counted
      ORDER BY e.resolved_at_ms, e.event_id, p.agent_prediction_id`;
    const last = rows.at(-1);
    const events = new Set(rows.map((row) => row.event_id)).size;
    const next = last !== undefined && events === page.events
      ? { resolvedAtMs: Number(last.resolved_at_ms), eventId: last.event_id }
      : null;
    return { rows: rows.flatMap(windowRowOf), next };
  }

  /** One transaction behind the lease row FOR SHARE: the head and every row replaced. */
  async putTableFenced(table: ScoreTable, options: { fence: Fence }): Promise<boolean> {
    return await this.#sql.begin(async (tx) => {
      if (!await holdsFence(tx, options.fence)) return false;
      await tx`INSERT INTO score_tables (id, computed_at_ms, window_days)
        VALUES (TRUE, ${table.computedAtMs}, ${table.windowDays})
        ON CONFLICT (id) DO UPDATE SET computed_at_ms = EXCLUDED.computed_at_ms,
          window_days = EXCLUDED.window_days`;
      await tx`DELETE FROM score_table_rows`;
      if (table.rows.length > 0) {
        await tx`INSERT INTO score_table_rows (uid, hotkey, record)
          SELECT (r->>'uid')::INTEGER, r->>'hotkey', r
          FROM jsonb_array_elements(${tx.json(table.rows as unknown as Json)}) AS r`;
      }
      return true;
    });
  }

  /** One statement, so the head and its rows come from one snapshot. */
  async getTable(): Promise<ScoreTable | null> {
    const rows = await this.#sql<
      { computed_at_ms: bigint; window_days: number; record: ScoreTableRow | null }[]
    >`
      SELECT t.computed_at_ms, t.window_days, r.record
      FROM score_tables t LEFT JOIN score_table_rows r ON TRUE
      ORDER BY r.uid, r.hotkey`;
    const [first] = rows;
    if (!first) return null;
    return {
      computedAtMs: Number(first.computed_at_ms),
      windowDays: first.window_days,
      rows: rows.flatMap((row) => row.record === null ? [] : [row.record]),
    };
  }
}

async function holdsFence(tx: TransactionSql, fence: Fence): Promise<boolean> {
  const lease = await tx`SELECT 1 FROM job_leases
    WHERE job = ${fence.job} AND token = ${fence.token} FOR SHARE`;
  return lease.length > 0;
}
