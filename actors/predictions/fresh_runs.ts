/**
 * The contract between `POST /v1/predictions/query` (`requestFresh`) and whatever queues the fresh
 * runs (priority assignments, the next round of an event: docs/predictions.md, "Fresh runs"). The query route
 * answers each found event's outcome as `freshRun` on its item.
 */

/** What happened to one event's fresh-run request. */
export type FreshRunStatus = "queued" | "already_queued" | "refused";

/** Why a fresh run was refused. */
export type FreshRunRefusal =
  /** The event is not in the assignment pool (ended, resolved, out of the band). */
  | "not_in_pool"
  /** No eligible miner has an agent to run on it. */
  | "no_eligible_agents"
  /** The organisation already asked for `FGW_FRESH_RUNS_PER_HOUR` events in the last hour. */
  | "org_hourly_limit";

export interface FreshRunOutcome {
  status: FreshRunStatus;
  /** Present when `status` is "refused". */
  reason?: FreshRunRefusal;
  /** The round queued, or already queued within the hour. */
  round?: number;
}

export interface FreshRunRequester {
  /**
   * Queues a fresh run for each of `eventIds` (distinct, all known catalog events) on behalf of
   * `orgId`: at most once per event per hour (another request within the hour: "already_queued")
   * and at most `FGW_FRESH_RUNS_PER_HOUR` newly queued events per organisation per hour, counted
   * across instances. Returns one outcome per id.
   */
  request(orgId: string, eventIds: readonly string[]): Promise<Map<string, FreshRunOutcome>>;
}
