import type { Sql, TransactionSql } from "postgres";
import type { Fence } from "../job_lease_store.ts";
import type {
  ListScoredEventsOptions,
  MinerRowsOf,
  ResolvedWindow,
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
  decodeRows,
  encodeRows,
  forBatchWrites,
  minerKey,
  minerKeysOf,
  type StoredRows,
  windowRowsOf,
} from "./_pg_scored_rows.ts";
import { pgArray } from "./_pg_array.ts";

type Json = Parameters<Sql["json"]>[0];

/** The scoring job's results in PostgreSQL (migrations `012_scores.sql`, `020_scoring_by_event.sql`). */
export class PgScoreStore implements ScoreStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * One transaction that first reads the lease row FOR SHARE (a takeover waits for it; one
   * committed first leaves no row), then one statement upserting every event with its rows (one
   * `scored_events` row each: record, rows, miners). An event whose record and rows did not change
   * is not rewritten.
   */
  async putEventsFenced(events: readonly ScoredEventWrite[], options: { fence: Fence }): Promise<boolean> {
    return await this.#sql.begin(async (tx) => {
      if (!await holdsFence(tx, options.fence)) return false;
      if (events.length === 0) return true;
      await forBatchWrites(tx);
      const values = events.map(({ event, predictions }) => ({
        eventId: event.eventId,
        resolvedAtMs: event.resolvedAtMs,
        record: event,
        rows: encodeRows(predictions),
        miners: minerKeysOf(predictions),
      }));
      await tx`INSERT INTO scored_events (event_id, resolved_at_ms, record, rows, miners)
        SELECT v."eventId", v."resolvedAtMs", v.record, v.rows, ARRAY(SELECT json_array_elements_text(v.miners))
        FROM json_to_recordset(${JSON.stringify(values)}::TEXT::JSON)
          AS v("eventId" TEXT, "resolvedAtMs" BIGINT, record JSONB, rows JSON, miners JSON)
        ON CONFLICT (event_id) DO UPDATE SET resolved_at_ms = EXCLUDED.resolved_at_ms, record = EXCLUDED.record,
          rows = EXCLUDED.rows, miners = EXCLUDED.miners
        WHERE scored_events.record IS DISTINCT FROM EXCLUDED.record
          OR scored_events.rows::TEXT IS DISTINCT FROM EXCLUDED.rows::TEXT`;
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
      SELECT record FROM scored_events WHERE event_id = ANY(${pgArray(eventIds)}::TEXT[])`;
    return rows.map((row) => row.record);
  }

  async predictionsOfEvents(eventIds: readonly string[]): Promise<ScoredPredictionRecord[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.#sql<{ event_id: string; rows: StoredRows | null }[]>`
      SELECT event_id, rows FROM scored_events WHERE event_id = ANY(${pgArray(eventIds)}::TEXT[])
      ORDER BY event_id`;
    return rows.flatMap((row) => decodeRows(row.event_id, row.rows));
  }

  async eventPredictions(
    eventId: string,
    options: { countedOnly?: boolean } = {},
  ): Promise<ScoredPredictionRecord[]> {
    const [row] = await this.#sql<{ rows: StoredRows | null }[]>`
      SELECT rows FROM scored_events WHERE event_id = ${eventId}`;
    return decodeRows(eventId, row?.rows ?? null, options);
  }

  async listEvents(options: ListScoredEventsOptions): Promise<ScoredEventRecord[]> {
    const sql = this.#sql;
    const { after, miner } = options;
    const rows = await sql<{ record: ScoredEventRecord }[]>`
      SELECT e.record FROM scored_events e
      WHERE TRUE
      ${
      after
        ? sql`AND (e.resolved_at_ms < ${after.resolvedAtMs}
            OR (e.resolved_at_ms = ${after.resolvedAtMs} AND e.event_id > ${after.eventId}))`
        : sql``
    }
      ${miner ? sql`AND e.miners @> ARRAY[${minerKey(miner.hotkey, miner.uid)}::TEXT]` : sql``}
      ORDER BY e.resolved_at_ms DESC, e.event_id LIMIT ${options.limit}`;
    return rows.map((row) => row.record);
  }

  /** One statement: the page's events (the window's first after the position), with their rows. */
  async windowRows(page: WindowPage): Promise<{ rows: WindowRow[]; next: ScoredEventPosition | null }> {
    const { after } = page;
    const events = await this.#sql<{ event_id: string; resolved_at_ms: bigint; rows: StoredRows | null }[]>`
      SELECT event_id, resolved_at_ms, rows FROM scored_events
      WHERE resolved_at_ms > ${page.resolvedAfterMs} AND resolved_at_ms <= ${page.resolvedUntilMs}
        AND (resolved_at_ms, event_id) > (${after?.resolvedAtMs ?? page.resolvedAfterMs}::BIGINT,
          ${after?.eventId ?? ""}::TEXT)
      ORDER BY resolved_at_ms, event_id LIMIT ${page.events}`;
    const last = events.at(-1);
    const next = last !== undefined && events.length === page.events
      ? { resolvedAtMs: Number(last.resolved_at_ms), eventId: last.event_id }
      : null;
    return { rows: events.flatMap((event) => windowRowsOf(event.event_id, event.rows)), next };
  }

  /** One statement: the miner's scored events in the window (the `miners` GIN key), their rows kept. */
  async minerRows(miner: MinerRowsOf, window: ResolvedWindow): Promise<ScoredPredictionRecord[]> {
    const events = await this.#sql<{ event_id: string; rows: StoredRows | null }[]>`
      SELECT event_id, rows FROM scored_events
      WHERE miners @> ARRAY[${minerKey(miner.hotkey, miner.uid)}::TEXT]
        AND resolved_at_ms > ${window.resolvedAfterMs} AND resolved_at_ms <= ${window.resolvedUntilMs}
      ORDER BY resolved_at_ms DESC, event_id`;
    return events.flatMap((event) =>
      decodeRows(event.event_id, event.rows, { countedOnly: true })
        .filter((row) =>
          row.minerHotkey === miner.hotkey && (miner.uid === undefined || row.minerUid === miner.uid)
        )
        .sort((a, b) => a.minerUid - b.minerUid)
    );
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
