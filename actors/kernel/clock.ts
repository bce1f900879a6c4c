/** Milliseconds since the Unix epoch. Injected everywhere time matters. */
export type Clock = () => number;

/** An hour and a day in milliseconds (UTC days: no leap seconds, no DST). */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** The wall clock. */
export const systemClock: Clock = () => Date.now();

/** ISO 8601 UTC with milliseconds and `Z`. */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}

/** A clock tests can move by hand. */
export class ManualClock {
  #now: number;
  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.#now = startMs;
  }
  readonly now: Clock = () => this.#now;
  advance(ms: number): void {
    this.#now += ms;
  }
  set(ms: number): void {
    this.#now = ms;
  }
}
