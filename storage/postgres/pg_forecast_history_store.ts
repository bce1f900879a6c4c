import type { Sql } from "postgres";
import {
  type ForecastHistoryStore,
  type ForecastPoint,
  hourOf,
  onePerHour,
  type PointRange,
} from "../forecast_history_store.ts";
import { jsonParam } from "./_pg_assignment_rows.ts";

/** Points written per statement. */
const POINTS_PER_INSERT = 1_000;

interface PointRow {
  event_id: string;
  at_ms: bigint;
  forecast: Record<string, number> | null;
  contributors: number;
  market: Record<string, number>;
}

/** The forecast history in PostgreSQL (`forecast_history`, migration 016). */
export class PgForecastHistoryStore implements ForecastHistoryStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * One `INSERT … SELECT FROM jsonb_to_recordset` per 1,000 points; on a point already in the hour,
   * an update only where the stored point has no forecast and the new one has.
   */
  async putPoints(points: readonly ForecastPoint[]): Promise<number> {
    const kept = onePerHour(points);
    let stored = 0;
    for (let start = 0; start < kept.length; start += POINTS_PER_INSERT) {
      const rows = kept.slice(start, start + POINTS_PER_INSERT).map((point) => ({
        event_id: point.eventId,
        hour_ms: hourOf(point.atMs),
        at_ms: point.atMs,
        forecast: point.forecast,
        contributors: point.contributors,
        market: point.market,
      }));
      const result = await this.#sql`
        INSERT INTO forecast_history (event_id, hour_ms, at_ms, forecast, contributors, market)
        SELECT event_id, hour_ms, at_ms, forecast, contributors, market
        FROM jsonb_to_recordset(${jsonParam(this.#sql, rows)}) AS r(
          event_id TEXT, hour_ms BIGINT, at_ms BIGINT, forecast JSONB, contributors INTEGER, market JSONB)
        ON CONFLICT (event_id, hour_ms) DO UPDATE SET at_ms = EXCLUDED.at_ms, forecast = EXCLUDED.forecast,
          contributors = EXCLUDED.contributors, market = EXCLUDED.market
        WHERE forecast_history.forecast IS NULL AND EXCLUDED.forecast IS NOT NULL`;
      stored += result.count;
    }
    return stored;
  }

  async listPoints(eventId: string, { fromMs, toMs }: PointRange): Promise<ForecastPoint[]> {
    const rows = await this.#sql<PointRow[]>`
      SELECT event_id, at_ms, forecast, contributors, market FROM forecast_history
      WHERE event_id = ${eventId} AND hour_ms >= ${hourOf(fromMs)} AND hour_ms <= ${hourOf(toMs)}
        AND at_ms >= ${fromMs} AND at_ms <= ${toMs}
      ORDER BY hour_ms`;
    return rows.map((row) => ({
      eventId: row.event_id,
      atMs: Number(row.at_ms),
      forecast: row.forecast,
      contributors: row.contributors,
      market: row.market,
    }));
  }

  async purgeBefore(beforeMs: number): Promise<number> {
    const result = await this.#sql`DELETE FROM forecast_history WHERE at_ms < ${beforeMs}`;
    return result.count;
  }
}
