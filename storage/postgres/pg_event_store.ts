import type { Sql } from "postgres";
import type { EventRecord, StoredEvent } from "../event_record.ts";
import type { ChangeCursor, EventStore } from "../event_store.ts";

interface EventRow {
  body: EventRecord;
  version: number;
  updated_at_ms: bigint;
  retired: boolean;
}

function toStored(row: EventRow): StoredEvent {
  const stored: StoredEvent = {
    event: row.body,
    version: row.version,
    updatedAtMs: Number(row.updated_at_ms),
  };
  return row.retired ? { ...stored, retired: true } : stored;
}

/** Events in PostgreSQL; writes are conditional on the row version. A retired event keeps its row. */
export class PgEventStore implements EventStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async get(id: string): Promise<StoredEvent | null> {
    const rows = await this.#sql<EventRow[]>`
      SELECT body, version, updated_at_ms, retired FROM events WHERE id = ${id}`;
    return rows[0] ? toStored(rows[0]) : null;
  }

  async put(event: EventRecord, expectedVersion: number, nowMs: number): Promise<StoredEvent | null> {
    const body = this.#sql.json(event as unknown as Parameters<Sql["json"]>[0]);
    const rows = expectedVersion === 0
      ? await this.#sql<EventRow[]>`
          INSERT INTO events (id, body, version, updated_at_ms) VALUES (${event.id}, ${body}, 1, ${nowMs})
          ON CONFLICT (id) DO NOTHING RETURNING body, version, updated_at_ms, retired`
      : await this.#sql<EventRow[]>`
          UPDATE events SET body = ${body}, version = version + 1, updated_at_ms = ${nowMs}, retired = false
          WHERE id = ${event.id} AND version = ${expectedVersion}
          RETURNING body, version, updated_at_ms, retired`;
    return rows[0] ? toStored(rows[0]) : null;
  }

  async listChanged(after: ChangeCursor | null, limit: number): Promise<StoredEvent[]> {
    const rows = after
      ? await this.#sql<EventRow[]>`
          SELECT body, version, updated_at_ms, retired FROM events
          WHERE (updated_at_ms, id) > (${after.updatedAtMs}, ${after.id})
          ORDER BY updated_at_ms, id LIMIT ${limit}`
      : await this.#sql<EventRow[]>`
          SELECT body, version, updated_at_ms, retired FROM events ORDER BY updated_at_ms, id LIMIT ${limit}`;
    return rows.map(toStored);
  }

  async count(): Promise<number> {
    const [row] = await this.#sql<{ n: bigint }[]>`SELECT count(*) AS n FROM events WHERE NOT retired`;
    return Number(row?.n ?? 0);
  }

  async retireSource(source: string, nowMs: number): Promise<number> {
    const rows = await this.#sql<{ id: string }[]>`
      UPDATE events SET retired = true, version = version + 1, updated_at_ms = ${nowMs}
      WHERE body->>'source' = ${source} AND NOT retired
      RETURNING id`;
    return rows.length;
  }
}
