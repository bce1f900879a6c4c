import type { JobRun, PeriodicJob } from "../runtime/mod.ts";
import type { CatalogSnapshot } from "../catalog/mod.ts";
import type { ForecastHistoryStore, ForecastPoint } from "../../storage/forecast_history_store.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { CustomerPrediction } from "./customer_prediction.ts";

/** The scheduler's name of the job, and of its storage lease. */
export const PREDICTION_SNAPSHOT_JOB = "prediction-snapshot";

const DAY_MS = 86_400_000;
/** Events read per `predictionsOf` call (one storage call each). */
const EVENTS_PER_READ = 100;

export interface PredictionSnapshotJobOptions {
  /** The catalog this instance serves; nothing is recorded before it has loaded. */
  catalog: { readonly loaded: boolean; current(): CatalogSnapshot; refresh(): Promise<void> };
  /** `PredictionReader.predictionsOf`: the consensus of events, as the endpoints serve it. */
  predictionsOf(events: readonly EventRecord[]): Promise<CustomerPrediction[]>;
  history: ForecastHistoryStore;
  /** `FGW_PREDICTION_SNAPSHOT_MS`. */
  intervalMs: number;
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
 * a re-run within the hour writes nothing new.
 */
export class PredictionSnapshotJob implements PeriodicJob {
  readonly name = PREDICTION_SNAPSHOT_JOB;
  readonly #options: PredictionSnapshotJobOptions;

  constructor(options: PredictionSnapshotJobOptions) {
    this.#options = options;
  }

  intervalMs(): number {
    return this.#options.intervalMs;
  }

  async run(nowMs: number, run: JobRun): Promise<void> {
    const { catalog, history } = this.#options;
    await catalog.refresh();
    if (!catalog.loaded) return;
    const live = catalog.current().sorted("endDate").map((item) => item.event).filter((e) =>
      isLive(e, nowMs)
    );
    for (let start = 0; start < live.length; start += EVENTS_PER_READ) {
      run.signal.throwIfAborted();
      const predictions = await this.#options.predictionsOf(live.slice(start, start + EVENTS_PER_READ));
      await history.putPoints(predictions.map((prediction) => pointOf(prediction, nowMs)));
    }
    await history.purgeBefore(nowMs - this.#options.retentionDays * DAY_MS);
  }
}
