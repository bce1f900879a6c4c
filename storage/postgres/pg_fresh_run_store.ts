import type { Sql } from "postgres";
import type { FreshRunLimits, FreshRunReservation, FreshRunStore } from "../fresh_run_store.ts";
import { pgArray } from "./_pg_array.ts";

/**
 * Fresh-run reservations in PostgreSQL: one call of `reserve_fresh_runs` (migration 015) per
 * batch, one transaction under the organisation's and the events' advisory locks, on the server's
 * clock.
 */
export class PgFreshRunStore implements FreshRunStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async reserve(
    orgId: string,
    eventIds: readonly string[],
    { perOrg, windowMs }: FreshRunLimits,
  ): Promise<Map<string, FreshRunReservation>> {
    if (eventIds.length === 0) return new Map();
    const [row] = await this.#sql<{ reply: Record<string, FreshRunReservation> }[]>`
      SELECT reserve_fresh_runs(${orgId}, ${pgArray(eventIds)}::text[], ${Math.floor(perOrg)}::INT,
        ${Math.ceil(windowMs)}::BIGINT) AS reply`;
    const reply = row!.reply;
    return new Map(eventIds.map((id) => [id, reply[id]!]));
  }
}
