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
   * Stores each point whose (event, hour) has none yet, or whose hour holds a point without a
   * forecast while it has one (that point is replaced). Otherwise the stored point is kept as it
   * is: a re-run of the job writes nothing. Returns how many were stored.
   */
  putPoints(points: readonly ForecastPoint[]): Promise<number>;
  /** The event's points in `range`, oldest first. */
  listPoints(eventId: string, range: PointRange): Promise<ForecastPoint[]>;
  /** Deletes every point taken before `beforeMs`; returns how many. */
  purgeBefore(beforeMs: number): Promise<number>;
}

/** True when `next` replaces `held`, the point stored for its hour: it has a forecast and `held` none. */
export function fillsEmptyPoint(held: ForecastPoint, next: ForecastPoint): boolean {
  return held.forecast === null && next.forecast !== null;
}

/**
 * `points` with one point per (event, hour): what storing them one after another would keep of
 * each hour (the first, unless a later one fills it). The adapters store a batch through it.
 */
export function onePerHour(points: readonly ForecastPoint[]): ForecastPoint[] {
  const kept = new Map<string, ForecastPoint>();
  for (const point of points) {
    const key = `${point.eventId}\u0000${hourOf(point.atMs)}`;
    const held = kept.get(key);
    if (held === undefined || fillsEmptyPoint(held, point)) kept.set(key, point);
  }
  return [...kept.values()];
}
