import { type CatalogView } from "../../actors/catalog/mod.ts";
import { FreshRunDesk, PredictionReader, PredictionSnapshotJob } from "../../actors/predictions/mod.ts";
import { type Clock, loggedOnce, type Logger } from "../../actors/kernel/mod.ts";
import type { MetagraphView } from "../../actors/validators/mod.ts";
import type { PoolRules } from "../../actors/catalog/mod.ts";
import type { LeaderboardView } from "../../actors/scoring/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import type { Config } from "./config.ts";

/** The customer predictions of one instance: the reader the endpoints use, the fresh-run queue and the snapshot job. */
export interface PredictionsWiring {
  reader: PredictionReader;
  /** Queues customers' fresh runs (`requestFresh` of `POST /v1/predictions/query`). */
  freshRuns: FreshRunDesk;
  snapshotJob: PredictionSnapshotJob;
  /** How often `pollChanges` should run (`FGW_PREDICTIONS_POLL_MS`). */
  pollMs: number;
  /**
   * Forgets the cached predictions of events predicted since the last poll (docs/predictions.md
   * "Freshness"); a failure is logged once until a poll succeeds again (entries still expire).
   */
  pollChanges(): Promise<void>;
}

export interface PredictionsDeps {
  storage: Storage;
  /** This instance's catalog view and leaderboard view. */
  catalog: CatalogView;
  leaderboard: LeaderboardView;
  metagraph: MetagraphView;
  /** The assignment pool's rules (the assignment sync's). */
  pool: PoolRules;
  clock: Clock;
  log: Logger;
  /** Told about every failed change poll, logged or not (metrics). */
  onPollError?: () => void;
}

/**
 * Wires customer predictions from config (`FGW_PREDICTIONS_CACHE_MS`, `FGW_PREDICTIONS_POLL_MS`, `FGW_PREDICTION_SNAPSHOT_MS`,
 * `FGW_PREDICTION_HISTORY_DAYS`, `FGW_FRESH_RUNS_PER_HOUR`).
 */
export function createPredictions(config: Config, deps: PredictionsDeps): PredictionsWiring {
  const reader = new PredictionReader({
    catalog: deps.catalog,
    assignments: deps.storage.assignments,
    billing: deps.storage.billing,
    leaderboard: deps.leaderboard,
    cacheMs: config.FGW_PREDICTIONS_CACHE_MS,
    clock: deps.clock,
  });
  const snapshotJob = new PredictionSnapshotJob({
    catalog: deps.catalog,
    predictionsOf: (events) => reader.predictionsOf(events),
    history: deps.storage.forecastHistory,
    intervalMs: config.FGW_PREDICTION_SNAPSHOT_MS,
    retentionDays: config.FGW_PREDICTION_HISTORY_DAYS,
    clock: deps.clock,
  });
  const { storage, clock, log } = deps;
  const freshRuns = new FreshRunDesk({
    freshRuns: storage.freshRuns,
    assignments: storage.assignments,
    eligibility: { orgs: storage.orgs, agents: storage.agents },
    metagraph: deps.metagraph,
    catalog: deps.catalog,
    pool: deps.pool,
    perOrgPerHour: config.FGW_FRESH_RUNS_PER_HOUR,
    clock,
    log,
  });
  const pollChanges = loggedOnce(() => reader.pollChanges(), {
    log,
    msg: "predictions change poll failed",
    ...(deps.onPollError ? { onError: deps.onPollError } : {}),
  });
  return { reader, freshRuns, snapshotJob, pollMs: config.FGW_PREDICTIONS_POLL_MS, pollChanges };
}
