import { DAY_MS, ServiceError } from "../../actors/kernel/mod.ts";
import { type HistoryInterval, MAX_HISTORY_DAYS } from "../../actors/predictions/mod.ts";

/** The range served without `from`: the last 7 days. */
export const DEFAULT_HISTORY_DAYS = 7;

export interface HistoryQuery {
  interval: HistoryInterval;
  from?: string | undefined;
  to?: string | undefined;
}

function refuse(field: string, problem: string): ServiceError {
  return new ServiceError("invalid_request", "Invalid query parameters", {
    details: { fields: [{ field, problem }] },
  });
}

/**
 * The range `[fromMs, toMs]` of a history query: `to` defaults to now, `from` to 7 days before
 * `to`. 400 naming `from` unless `from < to` and the range is at most the interval's maximum.
 */
export function historyRange(query: HistoryQuery, nowMs: number): { fromMs: number; toMs: number } {
  const toMs = query.to === undefined ? nowMs : Date.parse(query.to);
  const fromMs = query.from === undefined ? toMs - DEFAULT_HISTORY_DAYS * DAY_MS : Date.parse(query.from);
  if (fromMs >= toMs) throw refuse(query.from === undefined ? "to" : "from", "must be before `to`");
  const maxDays = MAX_HISTORY_DAYS[query.interval];
  if (toMs - fromMs > maxDays * DAY_MS) {
    throw refuse("from", `must be at most ${maxDays} days before \`to\` with interval=${query.interval}`);
  }
  return { fromMs, toMs };
}
