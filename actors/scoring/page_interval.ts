/**
 * The 95 % interval of a mean the web pages show (not part of scorer v1): `mean ± 1.96·sd/√n` over
 * the per-event values, with `sd` the sample standard deviation (n − 1). Shown only from
 * `MIN_INTERVAL_EVENTS` values on; null below that.
 */
export interface MeanInterval {
  mean: number;
  low: number;
  high: number;
  n: number;
}

/** Fewest per-event values an interval is shown for. */
export const MIN_INTERVAL_EVENTS = 5;

/** z of a two-sided 95 % interval. */
export const Z95 = 1.96;

/** The mean of `values` with its 95 % interval, or null for fewer than `MIN_INTERVAL_EVENTS` values. */
export function meanInterval(values: readonly number[]): MeanInterval | null {
  const n = values.length;
  if (n < MIN_INTERVAL_EVENTS) return null;
  let sum = 0;
  for (const value of values) sum += value;
  const mean = sum / n;
  let squares = 0;
  for (const value of values) squares += (value - mean) ** 2;
  const half = Z95 * Math.sqrt(squares / (n - 1)) / Math.sqrt(n);
  return { mean, low: mean - half, high: mean + half, n };
}
