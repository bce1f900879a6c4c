/** How pages write numbers and instants: one place, so every page agrees. */

/** A probability or Brier score with `digits` decimals; an em dash for null. */
export function fixed(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "—" : value.toFixed(digits);
}

/** A signed figure (an edge): `+0.012`, `−0.004`. */
export function signed(value: number | null | undefined, digits = 3): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const text = Math.abs(value).toFixed(digits);
  return value > 0 ? `+${text}` : value < 0 ? `−${text}` : text;
}

/** A share 0..1 as a percentage. */
export function percent(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined || !Number.isFinite(value)
    ? "—"
    : `${(value * 100).toFixed(digits)} %`;
}

/** A whole count with thousands separators. */
export function count(value: number): string {
  return value.toLocaleString("en-US");
}

/** US dollars with cents (`$1,234.56`); an em dash for null. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  return `$${value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** An instant as `2026-12-01 14:05 UTC` (pages show UTC: no script reads the reader's zone). */
export function utc(at: string | number | null | undefined): string {
  if (at === null || at === undefined) return "—";
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return "—";
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A date as `2026-12-01`. */
export function day(at: string | number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** A hotkey shortened for a table cell: first 6 and last 4 characters. */
export function shortKey(hotkey: string): string {
  return hotkey.length <= 12 ? hotkey : `${hotkey.slice(0, 6)}…${hotkey.slice(-4)}`;
}

const UNITS: ReadonlyArray<readonly [number, string]> = [
  [3_600_000, "hour"],
  [60_000, "minute"],
  [1_000, "second"],
];

/**
 * How often something happens, said for any period in ms: `every second`, `every 5 minutes`,
 * `every 1.5 seconds`, `every 250 milliseconds`; 0 is `on every request`.
 */
export function every(ms: number): string {
  if (ms <= 0) return "on every request";
  const [size, unit] = UNITS.find(([size]) => ms % size === 0) ??
    (ms >= 1_000 ? UNITS[UNITS.length - 1]! : [1, "millisecond"] as const);
  const amount = ms / size;
  return amount === 1 ? `every ${unit}` : `every ${count(amount)} ${unit}s`;
}
