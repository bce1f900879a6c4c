import type { Clock } from "../kernel/mod.ts";
import type { Fence, JobLeaseStore } from "../../storage/job_lease_store.ts";

export type { Fence } from "../../storage/job_lease_store.ts";

/** What one run of a periodic job gets from the scheduler. */
export interface JobRun {
  /**
   * Aborts when the scheduler stops or when the run's lease is lost (a renewal found the job
   * granted to someone else, or failed): a long run should give up promptly.
   */
  readonly signal: AbortSignal;
  /** The lease this run holds. Writes that a newer run must not be overwritten by carry it. */
  readonly fence: Fence;
}

/** A periodic job. `run` must be idempotent: it may re-run after a crash. */
export interface PeriodicJob {
  readonly name: string;
  /** Time between runs; may change between runs (backoff). */
  intervalMs(): number;
  run(nowMs: number, run: JobRun): Promise<void>;
}

export interface SchedulerOptions {
  leases: JobLeaseStore;
  clock: Clock;
  /** Unique per service instance. */
  holder: string;
  jobs: readonly PeriodicJob[];
  /** How often the timer checks for due jobs when started. */
  pollMs?: number;
  /** Lease time of every job (default: twice its interval, within 30 s .. 5 min). */
  leaseMs?: number;
  /** Where failed runs and lost leases are reported (the service logs them). */
  onError?: (job: string, error: unknown) => void;
  /** After each run: whether it threw, and how long it took by `clock` (metrics). */
  onRun?: (job: string, outcome: "ok" | "failed", ms: number) => void;
}

/** The reason a run's signal aborts with when its lease is lost. */
export class LeaseLostError extends Error {
  constructor(fence: Fence, cause?: unknown) {
    const why = cause === undefined ? "the job was granted to another holder" : `renewal failed: ${cause}`;
    super(`Cannot renew job lease: ${fence.job} (token ${fence.token}): ${why}`, { cause });
    this.name = "LeaseLostError";
  }
}

/** A run in flight: its lease, its abort switch, and when its lease is next extended. */
interface InFlight {
  fence: Fence;
  abort: AbortController;
  renewAt: number;
}

/**
 * Runs periodic jobs, each under a storage lease so only one instance runs a job at a time.
 * `tick` is the whole logic (tests call it with a manual clock); `start` only adds a timer.
 * Each run gets a fencing token and a signal that aborts when its lease is lost.
 */
export class Scheduler {
  readonly #options: SchedulerOptions;
  readonly #nextRunAt = new Map<string, number>();
  readonly #running = new Set<Promise<void>>();
  readonly #inFlight = new Map<string, InFlight>();
  /** The last grant of each job this instance took (it keeps the lease between runs). */
  readonly #granted = new Map<string, number>();
  readonly #stopping = new AbortController();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: SchedulerOptions) {
    this.#options = options;
  }

  /** Runs every due job whose lease this instance wins; resolves with their names. */
  async tick(): Promise<string[]> {
    const ran: string[] = [];
    for (const job of this.#options.jobs) {
      if (await this.#runIfDue(job)) ran.push(job.name);
    }
    return ran;
  }

  start(): void {
    const poll = () => {
      const pass = this.tick().then(() => {}, (error) => this.#options.onError?.("scheduler", error));
      this.#running.add(pass);
      pass.finally(() => this.#running.delete(pass));
    };
    this.#timer = setInterval(poll, this.#options.pollMs ?? 1_000);
    poll();
  }

  /** Stops the timer, waits for running jobs, and gives up held leases. */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#stopping.abort(new Error("Scheduler stopped"));
    await Promise.all(this.#running);
    const { leases } = this.#options;
    await Promise.all([...this.#granted].map(([job, token]) => leases.release(job, { token })));
    this.#granted.clear();
  }

  async #runIfDue(job: PeriodicJob): Promise<boolean> {
    const now = this.#options.clock();
    const inFlight = this.#inFlight.get(job.name);
    if (inFlight) {
      await this.#renewIfDue(job, inFlight, now);
      return false;
    }
    if (now < (this.#nextRunAt.get(job.name) ?? 0)) return false;
    return await this.#runUnderLease(job, now);
  }

  async #runUnderLease(job: PeriodicJob, now: number): Promise<boolean> {
    const { leases, clock, holder } = this.#options;
    const ttlMs = this.#leaseMs(job);
    // Marked in flight before the storage call, so a concurrent tick neither runs nor renews it.
    const abort = new AbortController();
    const pending: InFlight = { fence: { job: job.name, token: 0 }, abort, renewAt: Infinity };
    this.#inFlight.set(job.name, pending);
    try {
      const lease = await leases.tryAcquire(job.name, { holder, ttlMs });
      if (!lease) {
        this.#nextRunAt.set(job.name, now + job.intervalMs());
        return false;
      }
      pending.fence = { job: job.name, token: lease.token };
      pending.renewAt = now + ttlMs / 2;
      this.#granted.set(job.name, lease.token);
      await this.#run(job, now, pending);
      this.#nextRunAt.set(job.name, clock() + job.intervalMs());
      return true;
    } finally {
      this.#inFlight.delete(job.name);
    }
  }

  async #run(job: PeriodicJob, now: number, { fence, abort }: InFlight): Promise<void> {
    const signal = AbortSignal.any([this.#stopping.signal, abort.signal]);
    let outcome: "ok" | "failed" = "ok";
    try {
      await job.run(now, { signal, fence });
    } catch (error) {
      outcome = "failed";
      // A run aborted for its lost lease was reported when the loss was found; one cut short by
      // `stop` (shutdown) failed because it was asked to.
      if (!abort.signal.aborted && !this.#stopping.signal.aborted) this.#options.onError?.(job.name, error);
    }
    this.#options.onRun?.(job.name, outcome, this.#options.clock() - now);
  }

  /**
   * Keeps the lease of a run still in flight: a tick past half the lease time extends it. A renewal
   * that finds the lease lost, or that fails, aborts the run: it can no longer be sure that no other
   * instance runs the job, and its fenced writes would be refused anyway.
   */
  async #renewIfDue(job: PeriodicJob, inFlight: InFlight, now: number): Promise<void> {
    if (now < inFlight.renewAt || inFlight.abort.signal.aborted) return;
    const ttlMs = this.#leaseMs(job);
    inFlight.renewAt = now + ttlMs / 2;
    const lost = await this.#options.leases.renew(job.name, { token: inFlight.fence.token, ttlMs }).then(
      (renewed) => renewed ? null : new LeaseLostError(inFlight.fence),
      (error) => new LeaseLostError(inFlight.fence, error),
    );
    if (!lost) return;
    if (this.#granted.get(job.name) === inFlight.fence.token) this.#granted.delete(job.name);
    inFlight.abort.abort(lost);
    this.#options.onError?.(job.name, lost);
  }

  /**
   * How long a run holds its job: twice the interval, within 30 s .. 5 min. Runs renew it while
   * they last, so a backoff interval of many minutes does not delay failover after a crash.
   */
  #leaseMs(job: PeriodicJob): number {
    return this.#options.leaseMs ?? Math.min(Math.max(job.intervalMs() * 2, 30_000), 5 * 60_000);
  }
}
