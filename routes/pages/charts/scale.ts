/** A linear map from a data range onto a pixel range. */
export interface Scale {
  (value: number): number;
  ticks: number[];
}

/** `domain` onto `range` (either may run backwards: SVG's y grows downward), with `tickCount` ticks. */
export function linearScale(domain: [number, number], range: [number, number], tickCount = 5): Scale {
  const [d0, d1] = domain[0] === domain[1] ? [domain[0] - 1, domain[1] + 1] : domain;
  const [r0, r1] = range;
  const scale = ((value: number) => round(r0 + ((value - d0) / (d1 - d0)) * (r1 - r0))) as Scale;
  scale.ticks = Array.from({ length: tickCount + 1 }, (_, i) => d0 + ((d1 - d0) * i) / tickCount);
  return scale;
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
