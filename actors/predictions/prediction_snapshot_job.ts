import type { JobRun, PeriodicJob } from "../runtime/mod.ts";
import { type Clock, DAY_MS, HOUR_MS, systemClock } from "../kernel/mod.ts";
import type { CatalogSnapshot } from "../catalog/mod.ts";
import type { ForecastHistoryStore, ForecastPoint } from "../../storage/forecast_history_store.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { CustomerPrediction } from "./customer_prediction.ts";

/** The scheduler's name of the job, and of its storage lease. */
export const PREDICTION_SNAPSHOT_JOB = "prediction-snapshot";

/** How long after an hour starts the aligned run comes (clear of the boundary and of clock skew). */
const AFTER_HOUR_MS = 5_000;
/** The next try when the catalog had no live event yet (at boot, before the first ingestion). */
const RETRY_EMPTY_MS = 60_000;
/** Events read per `predictionsOf` call (one storage call each). */
const EVENTS_PER_READ = 100;

export interface PredictionSnapshotJobOptions {
  /** The catalog this instance serves; nothing is recorded before it has loaded. */
  catalog: { readonly loaded: boolean; current(): CatalogSnapshot; refresh(): Promise<void> };
  /** `PredictionReader.predictionsOf`: the consensus of events, as the endpoints serve it. */
  predictionsOf(events: readonly EventRecord[]): Promise<CustomerPrediction[]>;
  history: ForecastHistoryStore;
  /** `FGW_PREDICTION_SNAPSHOT_MS`: the longest time between runs. */
  intervalMs: number;
  clock?: Clock;
  /** `FGW_PREDICTION_HISTORY_DAYS`: points older than this are purged. */
  retentionDays: number;
}

/** A live event: unresolved and not ended at `nowMs`. */
function isLive(event: EventRecord, nowMs: number): boolean {
  return event.resolution.resolutionStatus === "unresolved" && Date.parse(event.endDate) > nowMs;
}

function pointOf(prediction: CustomerPrediction, atMs: number): ForecastPoint {
  return {
    eventId: prediction.eventId,
    atMs,
    forecast: prediction.forecast?.outcomeProbabilities ?? null,
    contributors: prediction.forecast?.contributors ?? 0,
    market: prediction.market.outcomePrices,
  };
}

/**
 * Records each live event's consensus and market prices as a point of the forecast history, then
 * purges the points older than the retention. Idempotent: a point is keyed by (event, UTC hour), so
 * a re-run within the hour writes nothing new, unless it fills an hour whose point had no forecast.
 * The next run comes at the start of the next UTC hour (a few seconds in) when that is sooner than
 * `intervalMs`, so runs do not drift by their own length and no hour is skipped; a run that found
 * no live event (the catalog not ingested yet) tries again within a minute.
 */
export class PredictionSnapshotJob implements PeriodicJob {
  readonly name = PREDICTION_SNAPSHOT_JOB;
  readonly #options: PredictionSnapshotJobOptions;
  /** The time to the next run, planned by the last run. */
  #nextMs: number | null = null;

  constructor(options: PredictionSnapshotJobOptions) {
    this.#options = options;
  }

  intervalMs(): number {
    return this.#nextMs ?? this.#options.intervalMs;
  }

  async run(nowMs: number, run: JobRun): Promise<void> {
    const live = await this.#liveEvents(nowMs);
    await this.#record(live, nowMs, run.signal);
    await this.#options.history.purgeBefore(nowMs - this.#options.retentionDays * DAY_MS);
    const endMs = (this.#options.clock ?? systemClock)();
    const untilNextHour = HOUR_MS - (endMs % HOUR_MS) + AFTER_HOUR_MS;
    const planned = Math.min(this.#options.intervalMs, untilNextHour);
    this.#nextMs = live.length === 0 ? Math.min(planned, RETRY_EMPTY_MS) : planned;
  }

  /**
   * Records a point at `nowMs` for each of `eventIds` that the catalog holds live, as a run does
   * for every live event (without its purge or its plan of the next run): for a caller in the
   * service's process that wants an event's consensus on record at a moment of its own, such as the
   * demo right before it resolves a market. Returns how many points were stored.
   */
  snapshotEvents(eventIds: readonly string[], nowMs: number): Promise<number> {
    const { catalog } = this.#options;
    if (!catalog.loaded) return Promise.resolve(0);
    const snapshot = catalog.current();
    const live = eventIds.flatMap((id) => snapshot.byId(id)?.event ?? []).filter((e) => isLive(e, nowMs));
    return this.#record(live, nowMs);
  }

  async #liveEvents(nowMs: number): Promise<EventRecord[]> {
    const { catalog } = this.#options;
    await catalog.refresh();
    if (!catalog.loaded) return [];
    return catalog.current().sorted("endDate").map((item) => item.event).filter((e) => isLive(e, nowMs));
  }

  /** Stores a point of each of `live`, `EVENTS_PER_READ` events per read; how many were stored. */
  async #record(live: readonly EventRecord[], nowMs: number, signal?: AbortSignal): Promise<number> {
    const { history } = this.#options;
    let stored = 0;
    for (let start = 0; start < live.length; start += EVENTS_PER_READ) {
      signal?.throwIfAborted();
      const predictions = await this.#options.predictionsOf(live.slice(start, start + EVENTS_PER_READ));
      stored += await history.putPoints(predictions.map((prediction) => pointOf(prediction, nowMs)));
    }
    return stored;
  }
}
