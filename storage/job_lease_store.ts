/**
 * The lease one claim of a periodic job holds. `token` is the lease's fencing token: every grant of
 * the job's lease gets a larger token than any grant before it (tokens are never reused), so a write
 * that carries the token can be refused once a newer run holds the job.
 */
export interface Fence {
  job: string;
  token: number;
}

export interface AcquireOptions {
  /** Unique per service instance. */
  holder: string;
  /** How long the lease lasts, counted on the storage's clock from the moment it decides. */
  ttlMs: number;
}

export interface RenewOptions {
  /** The token the lease was granted with. */
  token: number;
  /** The new lease time, counted on the storage's clock from the moment it decides. */
  ttlMs: number;
}

/**
 * Leases that let one service instance at a time run a periodic job, with fencing tokens.
 * Expiry is compared on the storage's clock (PostgreSQL: the server's `clock_timestamp()`; Deno KV:
 * the clock of the host the KV file lives on), never on the caller's: instances whose clocks
 * disagree still agree on who holds a job.
 */
export interface JobLeaseStore {
  /**
   * Grants the lease on `job` to `holder` for `ttlMs` when it is free, expired, or already held by
   * `holder`; the storage decides atomically. Every grant returns a new token, larger than any
   * before it for this job. Null when another holder has the lease (or won a race for it).
   */
  tryAcquire(job: string, options: AcquireOptions): Promise<{ token: number } | null>;
  /**
   * Extends the lease for `ttlMs` and keeps its token, when `token` is still the job's current
   * grant (not released, not granted again since, to anyone). False when the lease was lost.
   */
  renew(job: string, options: RenewOptions): Promise<boolean>;
  /** Gives the lease up if `token` is still its current grant; a stale token changes nothing. */
  release(job: string, options: { token: number }): Promise<void>;
  /**
   * True while `token` is the current grant of `job`. A check only: a decision that must not race
   * a takeover uses a fenced write (for example `SettingStore.putFenced`), which checks and writes
   * in one atomic step.
   */
  checkFence(fence: Fence): Promise<boolean>;
}
