import { type CatalogView } from "../actors/catalog/mod.ts";
import { PredictionReader, PredictionSnapshotJob } from "../actors/predictions/mod.ts";
import type { LeaderboardView } from "../actors/scoring/mod.ts";
import type { Storage } from "../storage/storage.ts";
import type { Config } from "./config.ts";

/** The customer predictions of one instance: the reader the endpoints use and the snapshot job. */
export interface PredictionsWiring {
  reader: PredictionReader;
  snapshotJob: PredictionSnapshotJob;
}

export interface PredictionsDeps {
  storage: Storage;
  /** This instance's catalog view and leaderboard view. */
  catalog: CatalogView;
  leaderboard: LeaderboardView;
}

/** Wires customer predictions from config (`FGW_PREDICTION_SNAPSHOT_MS`, `FGW_PREDICTION_HISTORY_DAYS`). */
export function createPredictions(config: Config, deps: PredictionsDeps): PredictionsWiring {
  const reader = new PredictionReader({
    catalog: deps.catalog,
    assignments: deps.storage.assignments,
    leaderboard: deps.leaderboard,
  });
  const snapshotJob = new PredictionSnapshotJob({
    catalog: deps.catalog,
    predictionsOf: (events) => reader.predictionsOf(events),
    history: deps.storage.forecastHistory,
    intervalMs: config.FGW_PREDICTION_SNAPSHOT_MS,
    retentionDays: config.FGW_PREDICTION_HISTORY_DAYS,
  });
  return { reader, snapshotJob };
}
