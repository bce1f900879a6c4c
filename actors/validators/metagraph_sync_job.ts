import type { Clock, Logger } from "../kernel/mod.ts";
import { type SyncAt, UpstreamSyncJob } from "../runtime/mod.ts";
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
 * retried sooner than the interval, backing off: 15 s, 30 s, 60 s … up to the interval
 * (`UpstreamSyncJob`).
 */
export class MetagraphSyncJob extends UpstreamSyncJob<MetagraphSnapshot> {
  override readonly name = METAGRAPH_SYNC_JOB;
  readonly #options: MetagraphSyncOptions;

  constructor(options: MetagraphSyncOptions) {
    super(options);
    this.#options = options;
  }

  protected override async read(signal: AbortSignal): Promise<MetagraphSnapshot> {
    const { source, netuid } = this.#options;
    const snapshot = await source.fetch(signal);
    if (snapshot.netuid !== netuid) {
      throw new MetagraphSourceError(`The source answered netuid ${snapshot.netuid}, not ${netuid}`);
    }
    return snapshot;
  }

  protected override isUpstreamFailure(error: unknown): error is MetagraphSourceError {
    return error instanceof MetagraphSourceError;
  }

  protected override record(snapshot: MetagraphSnapshot, { fence }: SyncAt): Promise<boolean> {
    return this.#options.store.putFenced(snapshot, { syncedAtMs: this.#options.clock(), fence });
  }

  protected override failed(error: MetagraphSourceError, { failures }: { failures: number }): void {
    this.#options.log({
      level: "warn",
      msg: "metagraph sync failed; the last synced metagraph stays in use",
      source: this.#options.source.name,
      reason: error.message,
      failures,
      nextAttemptInMs: this.intervalMs(),
    });
  }

  protected override notRecorded(snapshot: MetagraphSnapshot): void {
    this.#options.log({
      level: "warn",
      msg: "metagraph sync not recorded: a newer run holds the job",
      block: snapshot.block,
    });
  }

  protected override recorded(snapshot: MetagraphSnapshot): void {
    this.#options.log({
      level: "info",
      msg: "metagraph synced",
      source: this.#options.source.name,
      netuid: snapshot.netuid,
      block: snapshot.block,
      neurons: snapshot.neurons.length,
      validators: snapshot.neurons.filter((neuron) => neuron.validatorPermit).length,
    });
  }
}
