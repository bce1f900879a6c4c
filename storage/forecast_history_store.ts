/**
 * One snapshot of an event's customer consensus and market prices, as they were at `atMs`. Points
 * are keyed by (event, UTC hour of `atMs`): an event has at most one point per hour.
 */
export interface ForecastPoint {
  eventId: string;
  /** When the snapshot was taken. */
  atMs: number;
  /** The consensus `outcomeProbabilities` then; null when nobody contributed. */
  forecast: Record<string, number> | null;
  /** Contributions with a weight above 0. */
  contributors: number;
  /** The event's `currentOutcomePrices` then. */
  market: Record<string, number>;
}

/** The range of `listPoints`: `fromMs <= atMs <= toMs`. */
export interface PointRange {
  fromMs: number;
  toMs: number;
}

/** The UTC hour a point belongs to: its key with the event id. */
export function hourOf(atMs: number): number {
  return Math.floor(atMs / 3_600_000) * 3_600_000;
}

/**
 * Port for the forecast history (docs/predictions.md "History"): the points the snapshot job
 * records, read back per event, purged after the retention.
 */
export interface ForecastHistoryStore {
  /**
   * Stores each point whose (event, hour) has none yet; a point already stored for that hour is
   * kept as it is (a re-run of the job writes nothing). Returns how many were stored.
   */
  putPoints(points: readonly ForecastPoint[]): Promise<number>;
  /** The event's points in `range`, oldest first. */
  listPoints(eventId: string, range: PointRange): Promise<ForecastPoint[]>;
  /** Deletes every point taken before `beforeMs`; returns how many. */
  purgeBefore(beforeMs: number): Promise<number>;
}
