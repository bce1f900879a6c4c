import type { Logger } from "../kernel/mod.ts";
import type { Sr25519Verify } from "./sr25519.ts";

/** One verification: what `Sr25519Verify` takes. */
export interface VerifyJob {
  signature: Uint8Array;
  message: Uint8Array;
  publicKey: Uint8Array;
}

/** What the pool posts to a worker: jobs and their ids, in order. */
export interface VerifyBatch {
  ids: number[];
  jobs: VerifyJob[];
}

/** A worker's answer to a batch: one verdict per id, in the batch's order. */
export interface VerifyVerdicts {
  ids: number[];
  valid: boolean[];
}

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
  /** The worker's module (tests give one that fails). */
  workerUrl?: URL;
}

/** Workers that failed after which the pool stops starting them and verifies inline. */
const MOST_FAILURES = 3;

interface PoolWorker {
  worker: Worker;
  ready: boolean;
  /** Jobs posted and not yet answered. */
  sent: Map<number, Pending>;
  /** Jobs waiting for the worker's current batch to come back. */
  queued: Map<number, Pending>;
}

interface Pending {
  job: VerifyJob;
  resolve: (valid: boolean) => void;
}

/**
 * sr25519 verification on worker threads, so that a service's signature checks use every core
 * and leave its event loop free for HTTP and storage (docs/signatures.md, "Verification
 * threads"). Workers start on demand: the first when a verification comes, another when every
 * ready one is busy, up to `size`. A job goes to the ready worker with the fewest jobs; a worker
 * that is busy gets the jobs that came meanwhile as one batch when it answers. Until a worker is
 * ready (a start takes about 100 ms), jobs are verified inline, so no request waits for a start.
 * A worker that fails has its jobs verified inline; after three failures no worker is started
 * again (a warning is logged). The answers are the same wherever a job runs.
 */
export class VerifyPool {
  readonly #options: VerifyPoolOptions;
  readonly #workers = new Set<PoolWorker>();
  #nextId = 0;
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
    const target = this.#pick();
    if (!target) return Promise.resolve(this.#inline(job));
    return new Promise((resolve) => {
      const id = this.#nextId++;
      if (target.sent.size === 0) {
        target.sent.set(id, { job, resolve });
        target.worker.postMessage({ ids: [id], jobs: [job] } satisfies VerifyBatch);
      } else {
        target.queued.set(id, { job, resolve });
      }
    });
  };

  /** Stops every worker; jobs they had not answered are verified inline. Later jobs run inline. */
  close(): void {
    this.#closed = true;
    for (const entry of this.#workers) this.#drop(entry);
  }

  /** The ready worker with the fewest jobs, starting another when all are busy; null: inline. */
  #pick(): PoolWorker | null {
    let best: PoolWorker | null = null;
    let starting = false;
    for (const entry of this.#workers) {
      if (!entry.ready) {
        starting = true;
        continue;
      }
      if (!best || load(entry) < load(best)) best = entry;
    }
    if ((!best || load(best) > 0) && !starting) this.#start();
    return best;
  }

  #start(): void {
    const { size, workerUrl } = this.#options;
    if (this.#closed || this.#workers.size >= size || this.#failures >= MOST_FAILURES) return;
    const url = workerUrl ?? new URL("./verify_worker.ts", import.meta.url);
    const entry: PoolWorker = {
      worker: new Worker(url, { type: "module" }),
      ready: false,
      sent: new Map(),
      queued: new Map(),
    };
    entry.worker.onmessage = (event: MessageEvent<"ready" | VerifyVerdicts>) => {
      if (event.data === "ready") entry.ready = true;
      else this.#answered(entry, event.data);
    };
    entry.worker.onerror = (event) => {
      event.preventDefault();
      this.#failed(entry, event.message);
    };
    this.#workers.add(entry);
  }

  #answered(entry: PoolWorker, { ids, valid }: VerifyVerdicts): void {
    ids.forEach((id, i) => {
      entry.sent.get(id)?.resolve(valid[i] === true);
      entry.sent.delete(id);
    });
    if (entry.queued.size === 0) return;
    const batch: VerifyBatch = { ids: [], jobs: [] };
    for (const [id, pending] of entry.queued) {
      batch.ids.push(id);
      batch.jobs.push(pending.job);
    }
    entry.sent = entry.queued;
    entry.queued = new Map();
    entry.worker.postMessage(batch);
  }

  #failed(entry: PoolWorker, message: string): void {
    this.#failures++;
    this.#drop(entry);
    if (this.#failures === MOST_FAILURES) {
      this.#options.log?.({
        level: "warn",
        msg: "sr25519 verification workers keep failing: verifying on the main thread",
        error: message,
      });
    }
  }

  /** Terminates `entry` and verifies its unanswered jobs inline. */
  #drop(entry: PoolWorker): void {
    this.#workers.delete(entry);
    entry.worker.terminate();
    for (const pending of [...entry.sent.values(), ...entry.queued.values()]) {
      pending.resolve(this.#inline(pending.job));
    }
    entry.sent.clear();
    entry.queued.clear();
  }

  #inline({ signature, message, publicKey }: VerifyJob): boolean {
    return this.#options.inline(signature, message, publicKey);
  }
}

function load(entry: PoolWorker): number {
  return entry.sent.size + entry.queued.size;
}

/** `bytes` alone in its buffer (a view would post its whole buffer to the worker). */
function own(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}
