/** A linear map from a data range onto a pixel range. */
export type Scale = (value: number) => number;

/**
 * `domain` onto `range` (either may run backwards: SVG's y grows downward). A domain of one value
 * (a single point, or points with equal values) maps to the middle of the range.
 */
export function linearScale(domain: readonly [number, number], range: readonly [number, number]): Scale {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  if (d0 === d1) return () => round((r0 + r1) / 2);
  return (value) => round(r0 + ((value - d0) / (d1 - d0)) * (r1 - r0));
}

/** The multipliers of a nice step: 1, 2, 2.5 and 5 × 10^k. */
const NICE_MULTIPLIERS = [1, 2, 2.5, 5, 10];

/** The smallest nice step (1, 2, 2.5 or 5 × 10^k) that cuts `span` (> 0) into at most `intervals` parts. */
export function niceStep(span: number, intervals: number): number {
  const raw = span / intervals;
  const power = 10 ** Math.floor(Math.log10(raw));
  const multiplier = NICE_MULTIPLIERS.find((m) => m * power >= raw * (1 - 1e-9)) ?? 10;
  return multiplier * power;
}

/**
 * Ticks of a value axis: the multiples of a nice step inside `domain` (its ends included when they
 * are multiples), at most `intervals + 1` of them; a domain of one value has that one tick.
 */
export function niceTicks(domain: readonly [number, number], intervals = 5): number[] {
  const [low, high] = domain;
  if (low === high) return [low];
  return multiplesIn(domain, niceStep(high - low, intervals), 0);
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** 1970-01-05, the first Monday after the epoch: weeks start on Mondays (UTC). */
const FIRST_MONDAY_MS = 4 * DAY_MS;

/** The steps of a time axis, each with the instant its multiples are counted from. */
const TIME_STEPS: ReadonlyArray<readonly [number, number]> = [
  ...[1, 2, 3, 6, 12].map((hours) => [hours * HOUR_MS, 0] as const),
  [DAY_MS, 0],
  [2 * DAY_MS, 0],
  ...[1, 2, 4, 8, 13, 26, 52].map((weeks) => [weeks * 7 * DAY_MS, FIRST_MONDAY_MS] as const),
];

/**
 * Ticks of a time axis (ms since the epoch): the instants inside `domain` at whole UTC hours, days
 * or Monday-started weeks, with the smallest such step that is at least `minStepMs` (labels need
 * room). A domain of one instant has that one tick; a domain no step boundary falls in has its two
 * ends.
 */
export function timeTicks(domain: readonly [number, number], minStepMs: number): number[] {
  const [low, high] = domain;
  if (low === high) return [low];
  const [step, origin] = TIME_STEPS.find(([step]) => step >= minStepMs) ?? TIME_STEPS[TIME_STEPS.length - 1]!;
  const ticks = multiplesIn(domain, step, origin);
  return ticks.length > 0 ? ticks : [low, high];
}

/**
 * Ticks of a time axis over the instants `xs`: the instants themselves when each label has room
 * (`minStepMs` between neighbours: sparse data has a label on every point), else `timeTicks` over
 * their range.
 */
export function instantTicks(xs: readonly number[], minStepMs: number): number[] {
  const distinct = [...new Set(xs)].sort((a, b) => a - b);
  const roomy = distinct.every((x, i) => i === 0 || x - distinct[i - 1]! >= minStepMs);
  return distinct.length > 0 && roomy ? distinct : timeTicks(extent(distinct), minStepMs);
}

/** The ticks whose labels differ: of several ticks written alike, the first. */
export function distinctLabels(ticks: readonly number[], format: (value: number) => string): number[] {
  const seen = new Set<string>();
  return ticks.filter((tick) => {
    const label = format(tick);
    return !seen.has(label) && seen.add(label);
  });
}

/** Every `origin + k·step` inside `domain` (ends included), cleaned of floating-point dust. */
function multiplesIn(domain: readonly [number, number], step: number, origin: number): number[] {
  const [low, high] = domain;
  const first = Math.ceil((low - origin) / step - 1e-9);
  const last = Math.floor((high - origin) / step + 1e-9);
  const ticks: number[] = [];
  for (let k = first; k <= last; k++) ticks.push(Number((origin + k * step).toPrecision(12)));
  return ticks;
}

/** The smallest and largest of `values` ([0, 1] when there are none). */
export function extent(values: readonly number[]): [number, number] {
  if (values.length === 0) return [0, 1];
  let low = values[0]!, high = values[0]!;
  for (const value of values) {
    if (value < low) low = value;
    if (value > high) high = value;
  }
  return [low, high];
}

/** Pixels to one decimal: enough for a sharp line, short in the page. */
export function round(value: number): number {
  return Math.round(value * 10) / 10;
}
