import type { Context } from "hono";
import { isTimeZone, type UsageQuery } from "../../../actors/usage/mod.ts";
import { parseOrThrow } from "../../http/validation.ts";
import { usageQuerySchema } from "../../usage/usage_api.ts";

/** The usage form as the member typed it (its query string; shown again when it is refused). */
export interface UsageFormValues {
  from: string;
  to: string;
  tz: string;
  by: string;
}

/** The breakdowns the form offers, with their labels. */
export const USAGE_BREAKDOWNS = [
  ["key", "API key"],
  ["model", "Model"],
  ["provider", "Provider"],
  ["miner", "Miner"],
] as const;

/** Days a range covers when the form leaves `from` empty: the 30 days ending on `to`. */
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

/** The form's fields from the query string, as text (a repeated field: its last value). */
export function readUsageForm(c: Context): UsageFormValues {
  const text = (name: string) => (c.req.queries(name)?.at(-1) ?? "").trim();
  return { from: text("from"), to: text("to"), tz: text("tz"), by: text("by") };
}

/**
 * The usage query the form asks for, checked exactly as `GET /v1/usage` checks its query (dates,
 * a range of at most 366 days, an IANA zone, a breakdown); 400 `invalid_request` naming the
 * fields. An empty field takes its default: UTC (the page's script fills in the browser's zone),
 * the breakdown by key, `to` today in the zone, `from` 29 days before `to`.
 */
export function usageQueryOf(values: UsageFormValues, nowMs: number): UsageQuery {
  const tz = values.tz === "" ? "UTC" : values.tz;
  const to = values.to === "" ? localDate(nowMs, isTimeZone(tz) ? tz : "UTC") : values.to;
  const from = values.from === "" ? daysBefore(to, DEFAULT_DAYS - 1) : values.from;
  const query = parseOrThrow(
    usageQuerySchema,
    { from, to, tz, by: values.by === "" ? "key" : values.by },
    "query",
  );
  return { from: query.from, to: query.to, timeZone: query.tz, by: query.by };
}

/** The form's fields as the query string of the usage page or its CSV (every field explicit). */
export function usageSearch(query: UsageQuery): string {
  return new URLSearchParams({ from: query.from, to: query.to, tz: query.timeZone, by: query.by }).toString();
}

/** The local date (`YYYY-MM-DD`) of the instant `ms` in `timeZone`. */
export function localDate(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
    .format(ms);
}

/** The date `days` days before `date`; `date` itself when it is not a date (the schema refuses it). */
export function daysBefore(date: string, days: number): string {
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) ? date : new Date(ms - days * DAY_MS).toISOString().slice(0, 10);
}
