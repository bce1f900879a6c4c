import type { Clock } from "../kernel/mod.ts";
import type { JobLeaseStore } from "../../storage/job_lease_store.ts";

/** A periodic job. `run` must be idempotent: it may re-run after a crash. */
export interface PeriodicJob {
  readonly name: string;
  /** Time between runs; may change between runs (backoff). */
  intervalMs(): number;
  /** `signal` aborts when the scheduler stops: a long run should give up promptly. */
  run(nowMs: number, signal?: AbortSignal): Promise<void>;
}

export interface SchedulerOptions {
  leases: JobLeaseStore;
  clock: Clock;
  /** Unique per service instance. */
  holder: string;
  jobs: readonly PeriodicJob[];
  /** How often the timer checks for due jobs when started. */
  pollMs?: number;
  onError?: (job: string, error: unknown) => void;
}

/**
 * Runs periodic jobs, each under a storage lease so only one instance runs a job at a time.
 * `tick` is the whole logic (tests call it with a manual clock); `start` only adds a timer.
 */
export class Scheduler {
  readonly #options: SchedulerOptions;
  readonly #nextRunAt = new Map<string, number>();
  readonly #running = new Set<Promise<void>>();
  readonly #inFlight = new Set<string>();
  readonly #stopping = new AbortController();
  /** When the lease of a job still running is next extended. */
  readonly #renewAt = new Map<string, number>();
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
    const { leases, holder, jobs } = this.#options;
    await Promise.all(jobs.map((job) => leases.release(job.name, holder)));
  }

  async #runIfDue(job: PeriodicJob): Promise<boolean> {
    const now = this.#options.clock();
    if (this.#inFlight.has(job.name)) {
      await this.#renewIfDue(job, now);
      return false;
    }
    if (now < (this.#nextRunAt.get(job.name) ?? 0)) return false;
    this.#inFlight.add(job.name);
    try {
      return await this.#runUnderLease(job, now);
    } finally {
      this.#inFlight.delete(job.name);
    }
  }

  async #runUnderLease(job: PeriodicJob, now: number): Promise<boolean> {
    const { leases, clock, holder } = this.#options;
    const ttl = leaseMs(job);
    if (!(await leases.tryAcquire(job.name, holder, now, ttl))) {
      this.#nextRunAt.set(job.name, now + job.intervalMs());
      return false;
    }
    this.#renewAt.set(job.name, now + ttl / 2);
    try {
      await job.run(now, this.#stopping.signal);
    } catch (error) {
      this.#options.onError?.(job.name, error);
    }
    this.#nextRunAt.set(job.name, clock() + job.intervalMs());
    return true;
  }

  /** Keeps the lease of a run still in flight: a tick past half the lease time extends it. */
  async #renewIfDue(job: PeriodicJob, now: number): Promise<void> {
    const { leases, holder } = this.#options;
    if (now < (this.#renewAt.get(job.name) ?? Infinity)) return;
    const ttl = leaseMs(job);
    this.#renewAt.set(job.name, now + ttl / 2);
    if (!(await leases.tryAcquire(job.name, holder, now, ttl))) {
      this.#options.onError?.(job.name, new Error("Cannot renew job lease: another instance holds it"));
    }
  }
}

/**
 * How long a run holds its job: twice the interval, within 30 s .. 5 min. Runs renew it while
 * they last, so a backoff interval of many minutes does not delay failover after a crash.
 */
function leaseMs(job: PeriodicJob): number {
  return Math.min(Math.max(job.intervalMs() * 2, 30_000), 5 * 60_000);
}
