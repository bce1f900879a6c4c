/**
 * Gamma's timestamps: `2026-11-20T12:00:00Z`, `2025-06-09T08:01:34.856648Z` or, for `closedTime`,
 * `2026-08-18 16:57:10+00`; a timestamp without a zone is UTC.
 */

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Milliseconds since the epoch of a Gamma timestamp (no zone means UTC), or null when it is not one. */
export function parseGammaTimestamp(text: string): number | null {
  const match = TIMESTAMP.exec(text.trim());
  if (match === null) return null;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((part) =>
    Number(part ?? 0)
  );
  const millis = Number((match[7] ?? "").padEnd(3, "0").slice(0, 3));
  if (hour > 23 || minute > 59 || second > 59) return null;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(local);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return null;
  }
  return local - zoneOffsetMinutes(match[8] ?? "Z") * 60_000;
}

function zoneOffsetMinutes(zone: string): number {
  if (zone.toUpperCase() === "Z") return 0;
  const digits = zone.slice(1).replace(":", "");
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0");
  return zone.startsWith("-") ? -minutes : minutes;
}
