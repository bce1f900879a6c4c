/** Leases that let one service instance at a time run a periodic job. */
export interface JobLeaseStore {
  /**
   * Takes or renews the lease on `job` for `holder` until `nowMs + ttlMs`. Succeeds when the lease
   * is free, expired, or already held by `holder`; the storage decides atomically.
   */
  tryAcquire(job: string, holder: string, nowMs: number, ttlMs: number): Promise<boolean>;
  /** Gives the lease up if `holder` has it. */
  release(job: string, holder: string): Promise<void>;
}
