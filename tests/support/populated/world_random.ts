/** The populated world's randomness: seeded, so the world is the same on every run. */

/** Numbers in [0, 1). */
export type Random = () => number;

/** A generator (mulberry32) seeded from `label`: the same label gives the same numbers. */
export function seeded(label: string): Random {
  let state = 2_166_136_261;
  for (const char of label) state = Math.imul(state ^ char.charCodeAt(0), 16_777_619);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `values` divided by their sum. */
export function normalised(values: readonly number[]): number[] {
  const sum = values.reduce((a, b) => a + b, 0);
  return values.map((value) => value / sum);
}

/**
 * Probabilities as a market or an agent reports them: each kept within [0.01, 0.99], three
 * decimals, and summing to 1 (the last takes what the others leave).
 */
export function pricesOf(p: readonly number[]): number[] {
  const clamped = normalised(p.map((value) => Math.min(0.99, Math.max(0.01, value))));
  const rounded = clamped.slice(0, -1).map((value) => Math.round(value * 1000) / 1000);
  const rest = Math.round((1 - rounded.reduce((a, b) => a + b, 0)) * 1000) / 1000;
  return [...rounded, rest];
}
