import type { Logger } from "../kernel/mod.ts";
import type { Sr25519Verify } from "./sr25519.ts";

/** One verification: what `Sr25519Verify` takes. */
export interface VerifyJob {
  signature: Uint8Array;
  message: Uint8Array;
  publicKey: Uint8Array;
}

/**
 * What the pool posts to a worker: a batch of jobs. A worker has one batch out at a time and
 * answers it with one verdict per job, in the batch's order (`boolean[]`).
 */
export type VerifyBatch = VerifyJob[];

/** A verification that may wait for another thread. */
export type AsyncSr25519Verify = (
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
) => Promise<boolean>;

export interface VerifyPoolOptions {
  /** Most worker threads (`FGW_VERIFY_WORKERS`); 0 verifies every job on the calling thread. */
  size: number;
  /** The same verification on the calling thread: used until a worker is ready, and when none can run. */
  inline: Sr25519Verify;
  log?: Logger;
  /** The worker's module (tests give ones that fail). */
  workerUrl?: URL;
  /** A worker not ready this long after its start has failed (default 10 s). */
  startTimeoutMs?: number;
  /** A worker that has not answered a batch this long after it was posted has failed (default 10 s). */
  answerTimeoutMs?: number;
}

/** Failures in a row (no batch answered in between) after which no worker is started again. */
const MOST_FAILURES = 3;
/** Most jobs posted to a worker at once: the rest wait for the first worker free. */
const MOST_IN_BATCH = 64;
const DEFAULT_TIMEOUT_MS = 10_000;

interface PoolWorker {
  worker: Worker;
  ready: boolean;
  /** The batch posted and not yet answered (empty: the worker is free). */
  sent: Pending[];
  /** Runs out at the start deadline, then at each posted batch's answer deadline. */
  deadline: ReturnType<typeof setTimeout> | undefined;
}

interface Pending {
  job: VerifyJob;
  resolve: (valid: boolean) => void;
}

/**
 * sr25519 verification on worker threads, so that a service's signature checks use every core
 * and leave its event loop free for HTTP and storage (docs/signatures.md, "Verification
 * threads"). Workers start on demand: the first when a verification comes, another when a job
 * finds no ready worker free, up to `size`. A job goes to a free ready worker, else waits in one
 * queue that the first worker free takes from (at most 64 jobs a batch). Until a worker is ready
 * (a start takes about 100 ms), jobs are verified inline, so no request waits for a start. A
 * worker fails when it raises an error, is not ready within `startTimeoutMs`, or does not answer
 * a batch within `answerTimeoutMs`: it is stopped, its jobs are verified inline and a warning is
 * logged; after three failures in a row no worker is started again. The answers are the same
 * wherever a job runs.
 */
export class VerifyPool {
  readonly #options: VerifyPoolOptions;
  readonly #workers = new Set<PoolWorker>();
  readonly #queue: Pending[] = [];
  #started = 0;
  #failures = 0;
  #closed = false;

  constructor(options: VerifyPoolOptions) {
    this.#options = options;
  }

  /** Worker threads started and not failed (ready or starting). */
  get workers(): number {
    return this.#workers.size;
  }

  /** Worker threads ready for jobs. */
  get readyWorkers(): number {
    let ready = 0;
    for (const entry of this.#workers) if (entry.ready) ready++;
    return ready;
  }

  verify: AsyncSr25519Verify = (signature, message, publicKey) => {
    const job = { signature: own(signature), message: own(message), publicKey: own(publicKey) };
    const free = this.#free();
    if (!free && this.readyWorkers === 0) {
      this.#start();
      return Promise.resolve(this.#inline(job));
    }
    return new Promise((resolve) => {
      this.#queue.push({ job, resolve });
      if (free) this.#post(free);
      else this.#start();
    });
  };

  /** Stops every worker; jobs not answered yet are verified inline. Later jobs run inline. */
  close(): void {
    this.#closed = true;
    for (const entry of this.#workers) this.#stop(entry);
    for (const pending of this.#queue.splice(0)) pending.resolve(this.#inline(pending.job));
  }

  /** A ready worker with no batch out, if any. */
  #free(): PoolWorker | null {
    for (const entry of this.#workers) if (entry.ready && entry.sent.length === 0) return entry;
    return null;
  }

  /** Starts one more worker, unless one is starting or the pool is full, closed or given up. */
  #start(): void {
    const { size, workerUrl } = this.#options;
    if (this.#closed || this.#workers.size >= size || this.#failures >= MOST_FAILURES) return;
    for (const entry of this.#workers) if (!entry.ready) return;
    const url = workerUrl ?? new URL("./verify_worker.ts", import.meta.url);
    const entry: PoolWorker = {
      worker: new Worker(url, { type: "module", name: `sr25519-verify-${++this.#started}` }),
      ready: false,
      sent: [],
      deadline: undefined,
    };
    this.#arm(entry, this.#options.startTimeoutMs, "was not ready in time");
    entry.worker.onmessage = (event: MessageEvent<"ready" | boolean[]>) => {
      if (event.data !== "ready") return this.#answered(entry, event.data);
      entry.ready = true;
      clearTimeout(entry.deadline);
      this.#post(entry);
    };
    entry.worker.onerror = (event) => {
      event.preventDefault();
      this.#failed(entry, event.message);
    };
    this.#workers.add(entry);
  }

  /** Posts up to `MOST_IN_BATCH` queued jobs to `entry` (free and ready), with an answer deadline. */
  #post(entry: PoolWorker): void {
    if (this.#queue.length === 0) return;
    entry.sent = this.#queue.splice(0, MOST_IN_BATCH);
    this.#arm(entry, this.#options.answerTimeoutMs, "did not answer in time");
    entry.worker.postMessage(entry.sent.map((pending) => pending.job) satisfies VerifyBatch);
  }

  /** `valid`: the verdicts of `entry`'s batch, in its order. */
  #answered(entry: PoolWorker, valid: boolean[]): void {
    clearTimeout(entry.deadline);
    this.#failures = 0;
    const answered = entry.sent;
    entry.sent = [];
    answered.forEach((pending, i) => pending.resolve(valid[i] === true));
    this.#post(entry);
  }

  /** Sets `entry`'s deadline (`timeoutMs`, or the default): past it, the worker has failed. */
  #arm(entry: PoolWorker, timeoutMs: number | undefined, reason: string): void {
    clearTimeout(entry.deadline);
    entry.deadline = setTimeout(
      () => this.#failed(entry, `sr25519 verification worker ${reason}`),
      timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
  }

  #failed(entry: PoolWorker, message: string): void {
    if (!this.#workers.has(entry)) return;
    this.#failures++;
    this.#stop(entry);
    const givenUp = this.#failures >= MOST_FAILURES;
    this.#options.log?.({
      level: "warn",
      msg: givenUp
        ? "sr25519 verification worker failed; no more are started: verifying on the main thread"
        : "sr25519 verification worker failed; its verifications ran on the main thread",
      error: message,
    });
    if (givenUp || this.readyWorkers === 0) {
      for (const pending of this.#queue.splice(0)) pending.resolve(this.#inline(pending.job));
    }
  }

  /** Terminates `entry` and verifies its unanswered jobs inline. */
  #stop(entry: PoolWorker): void {
    this.#workers.delete(entry);
    clearTimeout(entry.deadline);
    entry.worker.terminate();
    for (const pending of entry.sent.splice(0)) pending.resolve(this.#inline(pending.job));
  }

  #inline({ signature, message, publicKey }: VerifyJob): boolean {
    return this.#options.inline(signature, message, publicKey);
  }
}

/** `bytes` alone in its buffer (a view would post its whole buffer to the worker). */
function own(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}
