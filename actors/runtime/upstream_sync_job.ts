import { FailureBackoff } from "./failure_backoff.ts";
import type { Fence, JobRun, PeriodicJob } from "./scheduler.ts";

export interface UpstreamSyncOptions {
  /** Time between successful syncs. */
  intervalMs: number;
  /** First wait after a failed sync, doubled per failure up to `intervalMs`; default min(15 s, interval). */
  retryBaseMs?: number | undefined;
  /** Called after each sync the job recorded (the service refreshes its view). */
  afterSync?: (() => Promise<unknown>) | undefined;
}

/** Where a run stands when it records what it read. */
export interface SyncAt {
  nowMs: number;
  /** The run's lease: the write carries it, so a run that lost its job cannot overwrite a newer one. */
  fence: Fence;
}

/**
 * The scaffold of a periodic job that copies an upstream into storage (docs/runtime.md, "Periodic
 * jobs and fencing"): each run reads the upstream and records what it read with a write fenced by
 * the run's lease. A read that fails with an upstream error leaves storage as it was (what was
 * recorded goes stale if failures last) and brings the next run sooner, backing off
 * (`FailureBackoff`); a success ends the backoff. Any other error, and a run cut short (its
 * signal aborted), go to the scheduler. A subclass says how to read, record and log.
 */
export abstract class UpstreamSyncJob<T> implements PeriodicJob {
  abstract readonly name: string;
  readonly #backoff: FailureBackoff;
  readonly #afterSync: (() => Promise<unknown>) | undefined;

  constructor(options: UpstreamSyncOptions) {
    this.#backoff = new FailureBackoff(options.intervalMs, { retryBaseMs: options.retryBaseMs });
    this.#afterSync = options.afterSync;
  }

  /** Failed syncs in a row on this instance since its last recorded one. */
  get failures(): number {
    return this.#backoff.failures;
  }

  intervalMs(): number {
    return this.#backoff.nextMs();
  }

  async run(nowMs: number, { signal, fence }: JobRun): Promise<void> {
    const read = await this.#attempt(nowMs, signal);
    if (read === null) return;
    if (!(await this.record(read.value, { nowMs, fence }))) return this.notRecorded(read.value, fence);
    const failures = this.#backoff.failures;
    this.#backoff.succeeded();
    this.recorded(read.value, { failures });
    await this.#afterSync?.();
  }

  /** What the upstream answered, or null after an upstream failure (counted and reported). */
  async #attempt(nowMs: number, signal: AbortSignal): Promise<{ value: T } | null> {
    try {
      return { value: await this.read(signal) };
    } catch (error) {
      signal.throwIfAborted();
      if (!this.isUpstreamFailure(error)) throw error;
      this.failed(error, { failures: this.#backoff.failed(), nowMs });
      return null;
    }
  }

  /** Reads the upstream; an error `isUpstreamFailure` accepts is a failed sync, any other one fails the run. */
  protected abstract read(signal: AbortSignal): Promise<T>;
  protected abstract isUpstreamFailure(error: unknown): error is Error;
  /** The fenced write of what was read; false when a newer run holds the job (nothing written). */
  protected abstract record(value: T, at: SyncAt): Promise<boolean>;
  /** Reports a failed sync: `failures` in a row, this one included (`intervalMs()` is the next wait). */
  protected abstract failed(error: Error, attempt: { failures: number; nowMs: number }): void;
  /** Reports a read the run could not record: a newer run holds the job. */
  protected abstract notRecorded(value: T, fence: Fence): void;
  /** Reports a recorded sync; `failures` is how many came in a row before it. */
  protected abstract recorded(value: T, sync: { failures: number }): void;
}
