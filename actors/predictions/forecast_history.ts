/** The history endpoint's points (docs/predictions.md "History"). Pure. */
import { DAY_MS, isoAt } from "../kernel/mod.ts";
import type { ForecastPoint } from "../../storage/forecast_history_store.ts";

export type HistoryInterval = "1h" | "1d";

/** The longest range each interval serves, in days. */
export const MAX_HISTORY_DAYS: Readonly<Record<HistoryInterval, number>> = { "1h": 31, "1d": 366 };

export interface HistoryPoint {
  at: string;
  forecast: Record<string, number> | null;
  market: Record<string, number>;
  contributors: number;
}

/** `record` with its keys in `order` (stored JSON may not keep key order), others after. */
function ordered(record: Record<string, number>, order: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of order) if (key in record) out[key] = record[key]!;
  for (const [key, value] of Object.entries(record)) if (!(key in out)) out[key] = value;
  return out;
}

/**
 * The served points of `points` (one event's, oldest first): every point for `1h`, the last point
 * of each UTC day for `1d`. Probabilities and prices keyed in the event's outcome order.
 */
export function historyPoints(
  points: readonly ForecastPoint[],
  interval: HistoryInterval,
  outcomeIds: readonly string[],
): HistoryPoint[] {
  const picked = interval === "1h"
    ? points
    : points.filter((point, i) =>
      Math.floor(point.atMs / DAY_MS) !== Math.floor((points[i + 1]?.atMs ?? Infinity) / DAY_MS)
    );
  return picked.map((point) => ({
    at: isoAt(point.atMs),
    forecast: point.forecast === null ? null : ordered(point.forecast, outcomeIds),
    market: ordered(point.market, outcomeIds),
    contributors: point.contributors,
  }));
}
