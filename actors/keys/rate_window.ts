/** Length of a rate-limit window: one minute (limits are per minute). */
export const MINUTE_MS = 60_000;

/** A fixed window: `[startMs, endMs)`. */
export interface RateWindow {
  startMs: number;
  endMs: number;
}

/** The fixed window of length `windowMs` that contains `nowMs`. */
export function windowAt(nowMs: number, windowMs = MINUTE_MS): RateWindow {
  const startMs = Math.floor(nowMs / windowMs) * windowMs;
  return { startMs, endMs: startMs + windowMs };
}

/** Whole seconds until `window` ends, at least 1 (the value of `Retry-After`). */
export function secondsUntilReset(window: RateWindow, nowMs: number): number {
  return Math.max(1, Math.ceil((window.endMs - nowMs) / 1_000));
}
