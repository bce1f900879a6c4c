/**
 * Local days of an IANA time zone as UTC quarter-hours. Every offset in use since 1972 is a whole
 * number of quarter-hours (Asia/Kolkata +5:30, Asia/Kathmandu +5:45, Australia/Eucla +8:45), so a
 * local day's start — its first instant, local midnight or, where a clock change skips midnight,
 * the first instant after — is the start of a UTC quarter-hour, and a day is exactly the
 * quarter-hours between its start and the next day's.
 */
import { QUARTER_MS } from "../../storage/usage_store.ts";

/** Days in the longest range a usage query takes. */
export const MAX_DAYS = 366;

const DAY_MS = 86_400_000;
/** The shape of an IANA zone name (`Area/Location`, `Etc/GMT+5`, `UTC`): offset strings such as `+05:30` are not names. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;
/** Formatters made (one per zone name asked for); emptied past this many, so odd names cannot grow it. */
const MAX_FORMATTERS = 1_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** True when `name` is an IANA time zone this runtime knows (`Intl`), given as a name. */
export function isTimeZone(name: string): boolean {
  if (name.length > 64 || !ZONE_NAME.test(name)) return false;
  try {
    formatterOf(name);
    return true;
  } catch {
    return false;
  }
}

/** The days `from` to `to` (`YYYY-MM-DD`, inclusive) of `timeZone`, and their bounds in quarter-hours. */
export interface LocalDays {
  days: string[];
  /** `days.length + 1` quarter-hours, non-decreasing: day i is `[starts[i], starts[i + 1])` (empty for a day the zone skipped). */
  starts: number[];
}

/** The local days of a range; a RangeError for a zone `isTimeZone` refuses or a date that is not one. */
export function localDays(range: { from: string; to: string }, timeZone: string): LocalDays {
  if (!isTimeZone(timeZone)) throw new RangeError(`Unknown time zone: ${timeZone}`);
  const first = dateMs(range.from);
  const count = (dateMs(range.to) - first) / DAY_MS + 1;
  const days = Array.from(
    { length: count },
    (_, i) => new Date(first + i * DAY_MS).toISOString().slice(0, 10),
  );
  const starts = Array.from(
    { length: count + 1 },
    (_, i) => dayStartMs(first + i * DAY_MS, timeZone) / QUARTER_MS,
  );
  return { days, starts };
}

/** The number of days from `from` to `to` inclusive (0 or less when `to` is before `from`). */
export function dayCount(range: { from: string; to: string }): number {
  return (dateMs(range.to) - dateMs(range.from)) / DAY_MS + 1;
}

/** The UTC midnight of a `YYYY-MM-DD` date; a RangeError for anything else. */
function dateMs(date: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) : NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date) {
    throw new RangeError(`Not a date: ${date}`);
  }
  return ms;
}

/**
 * The first quarter-hour whose local wall time is at or after the local midnight `wallMs` (that
 * date's midnight as if UTC): the offset's guess, then quarter-hour steps out of a skipped
 * midnight or back to the first of a repeated one.
 */
function dayStartMs(wallMs: number, timeZone: string): number {
  const wall = (ms: number) => wallClockMs(ms, timeZone);
  let start = wallMs - (wall(wallMs) - wallMs);
  start = wallMs - (wall(start) - start);
  start -= ((start % QUARTER_MS) + QUARTER_MS) % QUARTER_MS;
  for (let step = 0; step < 200 && wall(start) < wallMs; step++) start += QUARTER_MS;
  for (let step = 0; step < 200 && wall(start - QUARTER_MS) >= wallMs; step++) start -= QUARTER_MS;
  return start;
}

/** The local wall-clock time of the instant `ms` in `timeZone`, read as if it were UTC (whole seconds). */
function wallClockMs(ms: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(ms)) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(timeZone, formatter);
  }
  return formatter;
}
