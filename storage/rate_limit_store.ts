/** Hits to add to one fixed window `[windowStartMs, windowStartMs + windowMs)`. */
export interface WindowHits {
  windowStartMs: number;
  windowMs: number;
  /** How many hits to add at once (default 1); a negative number takes hits back (a refund). */
  hits?: number;
}

/** The bucket that counts an API key's requests. */
export function keyBucket(keyId: string): string {
  return `key:${keyId}`;
}

/** Fixed-window request counters shared by every service instance. */
export interface RateLimitStore {
  /**
   * Atomically adds the hits to the window of `bucket` and returns the window's count including
   * them. The window is forgotten some time after it ends.
   */
  hit(bucket: string, at: WindowHits): Promise<number>;
  /** Deletes windows that ended at or before `nowMs`; returns how many (0 where storage expires them itself). */
  purgeEnded(nowMs: number): Promise<number>;
}
