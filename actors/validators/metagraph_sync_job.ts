import type { Clock, Logger } from "../kernel/mod.ts";
import { FailureBackoff, type JobRun, type PeriodicJob } from "../runtime/mod.ts";
import type { MetagraphStore } from "../../storage/metagraph_store.ts";
import { type MetagraphSource, MetagraphSourceError } from "./metagraph_source.ts";
import type { MetagraphSnapshot } from "./neuron.ts";

export interface MetagraphSyncOptions {
  source: MetagraphSource;
  store: MetagraphStore;
  /** The subnet the service serves (`FGW_NETUID`): a snapshot of another one is refused. */
  netuid: number;
  /** Time between successful syncs (`FGW_METAGRAPH_SYNC_MS`). */
  intervalMs: number;
  /** First wait after a failed sync, doubled per failure up to `intervalMs`; default min(15 s, interval). */
  retryBaseMs?: number;
  clock: Clock;
  log: Logger;
  /** Called after each sync this job recorded (the service refreshes its view). */
  afterSync?: () => Promise<unknown>;
}

/** The scheduler's name of the job, and of its storage lease. */
export const METAGRAPH_SYNC_JOB = "metagraph-sync";

/**
 * Periodic metagraph sync: reads the whole metagraph from the source and records it, fenced by
 * the run's lease token. A failed read leaves the last recorded metagraph and its sync time as
 * they were (so the metagraph goes stale if failures last), is logged once per attempt, and is
 * retried sooner than the interval, backing off: 15 s, 30 s, 60 s … up to the interval.
 */
export class MetagraphSyncJob implements PeriodicJob {
  readonly name = METAGRAPH_SYNC_JOB;
  readonly #options: MetagraphSyncOptions;
  readonly #backoff: FailureBackoff;

  constructor(options: MetagraphSyncOptions) {
    this.#options = options;
    this.#backoff = new FailureBackoff(options.intervalMs, { retryBaseMs: options.retryBaseMs });
  }

  /** Failed syncs in a row on this instance. */
  get failures(): number {
    return this.#backoff.failures;
  }

  intervalMs(): number {
    return this.#backoff.nextMs();
  }

  async run(_nowMs: number, { signal, fence }: JobRun): Promise<void> {
    const { store, clock, log } = this.#options;
    const snapshot = await this.#read(signal);
    if (snapshot === null) return;
    const syncedAtMs = clock();
    if (!await store.putFenced(snapshot, { syncedAtMs, fence })) {
      log({
        level: "warn",
        msg: "metagraph sync not recorded: a newer run holds the job",
        block: snapshot.block,
      });
      return;
    }
    this.#backoff.succeeded();
    log({
      level: "info",
      msg: "metagraph synced",
      source: this.#options.source.name,
      netuid: snapshot.netuid,
      block: snapshot.block,
      neurons: snapshot.neurons.length,
      validators: snapshot.neurons.filter((neuron) => neuron.validatorPermit).length,
    });
    await this.#options.afterSync?.();
  }

  /** The source's metagraph, or null after a failure that was counted and logged. */
  async #read(signal: AbortSignal): Promise<MetagraphSnapshot | null> {
    const { source, netuid, log } = this.#options;
    try {
      const snapshot = await source.fetch(signal);
      if (snapshot.netuid !== netuid) {
        throw new MetagraphSourceError(`The source answered netuid ${snapshot.netuid}, not ${netuid}`);
      }
      return snapshot;
    } catch (error) {
      signal.throwIfAborted();
      if (!(error instanceof MetagraphSourceError)) throw error;
      const failures = this.#backoff.failed();
      log({
        level: "warn",
        msg: "metagraph sync failed; the last synced metagraph stays in use",
        source: source.name,
        reason: error.message,
        failures,
        nextAttemptInMs: this.intervalMs(),
      });
      return null;
    }
  }
}
