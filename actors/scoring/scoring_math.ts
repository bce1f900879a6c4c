/**
 * The arithmetic every scorer formula shares: the `r6` rounding of docs/scoring.md, exact means of rounded
 * values, code-point ordering and sums taken in a fixed key order, so that no result depends on
 * the order rows or object keys arrive in.
 */

/**
 * `r6(x) = Math.round(x × 1e6) / 1e6`, the rounding of every published number. A tiny negative
 * value rounds to 0, never −0 (which would print as 0 but compare unequal under `Object.is`).
 */
export function r6(x: number): number {
  return Math.round(x * 1e6) / 1e6 + 0;
}

/**
 * The r6-rounded mean of r6-rounded values, exact whatever their order: the values are summed as
 * integer micro-units, divided by the count and rounded once. NaN for an empty list.
 */
export function exactMeanR6(values: readonly number[]): number {
  let micro = 0;
  for (const value of values) micro += Math.round(value * 1e6);
  return Math.round(micro / values.length) / 1e6 + 0;
}

/** A UTF-16 code unit moved so that unit order is code-point order (surrogates above U+FFFF's units). */
function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/** Compares two strings by Unicode code point (not UTF-16 code unit, which `<` does). */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** The keys of `record` in the event's outcome order, then any other keys in code-point order. */
export function keysInOutcomeOrder(
  record: Readonly<Record<string, unknown>>,
  outcomeIds: readonly string[],
): string[] {
  const known = new Set(outcomeIds);
  const first = outcomeIds.filter((id) => Object.hasOwn(record, id));
  const rest = Object.keys(record).filter((key) => !known.has(key)).sort(compareCodePoints);
  return [...first, ...rest];
}

/**
 * Σ of a record's values in the fixed key order (outcome order, then code-point order): the
 * outcome keys first, then, only when the record has others, those sorted (`keysInOutcomeOrder`).
 */
export function sumInOutcomeOrder(
  record: Readonly<Record<string, number>>,
  outcomeIds: readonly string[],
): number {
  let sum = 0;
  let found = 0;
  for (const id of outcomeIds) {
    if (!Object.hasOwn(record, id)) continue;
    sum += record[id]!;
    found += 1;
  }
  const keys = Object.keys(record);
  if (keys.length === found) return sum;
  const known = new Set(outcomeIds);
  for (const key of keys.filter((key) => !known.has(key)).sort(compareCodePoints)) sum += record[key]!;
  return sum;
}

/**
 * The record divided by its sum (summed in the fixed order), keyed by outcome id; a key the record
 * lacks counts as 0. Null when the sum is not a positive finite number.
 */
export function normalise(
  record: Readonly<Record<string, number>>,
  outcomeIds: readonly string[],
): Map<string, number> | null {
  const sum = sumInOutcomeOrder(record, outcomeIds);
  if (!(sum > 0) || !Number.isFinite(sum)) return null;
  return new Map(outcomeIds.map((id) => [id, (record[id] ?? 0) / sum]));
}
