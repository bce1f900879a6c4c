/** The limits one `reserve` enforces, on the storage's clock. */
export interface FreshRunLimits {
  /** The most events one organisation may newly queue within `windowMs` (`FGW_FRESH_RUNS_PER_HOUR`). */
  perOrg: number;
  /** The window of both limits: one hour in the service; shorter in tests. */
  windowMs: number;
}

/** What `reserve` decided for one event. */
export type FreshRunReservation =
  /** Reserved now: the caller creates the assignments of `round`. */
  | { status: "queued"; round: number }
  /** A fresh run of the event was queued within the window (by anyone): that one's round. */
  | { status: "already_queued"; round: number }
  /** The organisation has newly queued `perOrg` events within the window. */
  | { status: "org_limit" };

/**
 * Port for fresh-run reservations (docs/predictions.md "Fresh runs"): which round of an event a
 * customer's fresh run takes, at most one per event per window, and how many events each
 * organisation queued within the window. Shared by every service instance; both limits hold
 * under concurrent reservations (PostgreSQL: one function call under advisory locks; Deno KV:
 * versionstamp-checked commits).
 */
export interface FreshRunStore {
  /**
   * Decides, in `eventIds` order, for each event: `already_queued` (a run queued within the window),
   * else `queued` while the organisation's count within the window stays within `perOrg`, else
   * `org_limit`. A queued event takes round = 1 + the greater of its last fresh round and its
   * assignments' latest round (rounds > 0 exist only through here). One storage round trip
   * (PostgreSQL) or one atomic commit per 99 ids (Deno KV's 100 checks per commit), atomic each.
   */
  reserve(
    orgId: string,
    eventIds: readonly string[],
    limits: FreshRunLimits,
  ): Promise<Map<string, FreshRunReservation>>;
}
