import type { Clock, Logger } from "../../actors/kernel/mod.ts";
import { LeaderboardView, MinerView, ScoringJob } from "../../actors/scoring/mod.ts";
import type { MetagraphView } from "../../actors/validators/mod.ts";
import type { PriceView } from "../../actors/prices/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import type { Config } from "./config.ts";

/**
 * The scoring of one instance: the periodic job (run by whichever instance holds its lease) and
 * the views public reads are served from.
 */
export interface ScoringWiring {
  job: ScoringJob;
  leaderboard: LeaderboardView;
  /** The miners' reports (`GET /v1/miners/{hotkey}` and the miner pages), over the leaderboard view. */
  miners: MinerView;
}

export interface ScoringDeps {
  storage: Storage;
  clock: Clock;
  log: Logger;
  /** This instance's metagraph and price views. */
  metagraph: MetagraphView;
  prices: PriceView;
  /** Told when an event's settlement contradicts the one it was scored on (metrics). */
  onSettlementContradicted?: (eventId: string) => void;
  /** After each completed run. */
  afterRun?: () => Promise<unknown>;
}

/**
 * Wires scoring from config (`FGW_SCORING_*`, `FGW_FORECASTING_WEIGHT_SHARE`, `FGW_NETUID`, and
 * `FGW_LEASE_MS` + `FGW_LEASE_GRACE_MS` for how long late submissions are looked for,
 * `FGW_LEADERBOARD_CACHE_MS` for how long a built board is served).
 */
export function createScoring(config: Config, deps: ScoringDeps): ScoringWiring {
  const { storage } = deps;
  const job = new ScoringJob({
    events: storage.events,
    assignments: storage.assignments,
    scores: storage.scores,
    settings: storage.settings,
    metagraph: storage.metagraph,
    netuid: config.FGW_NETUID,
    intervalMs: config.FGW_SCORING_INTERVAL_MS,
    windowDays: config.FGW_SCORING_WINDOW_DAYS,
    // A lease claimed before the event settled may be submitted until its expiry plus the grace.
    lateSubmissionMs: config.FGW_LEASE_MS + config.FGW_LEASE_GRACE_MS,
    log: deps.log,
    ...(deps.onSettlementContradicted ? { onSettlementContradicted: deps.onSettlementContradicted } : {}),
    ...(deps.afterRun ? { afterRun: deps.afterRun } : {}),
  });
  const leaderboard = new LeaderboardView({
    metagraph: deps.metagraph,
    prices: deps.prices,
    scores: storage.scores,
    history: storage.forecastHistory,
    orgs: storage.orgs,
    clock: deps.clock,
    forecastingWeightShare: config.FGW_FORECASTING_WEIGHT_SHARE,
    windowDays: config.FGW_SCORING_WINDOW_DAYS,
    scoringIntervalMs: config.FGW_SCORING_INTERVAL_MS,
    cacheMs: config.FGW_LEADERBOARD_CACHE_MS,
  });
  const miners = new MinerView({
    leaderboard,
    scores: storage.scores,
    assignments: storage.assignments,
    agents: storage.agents,
    clock: deps.clock,
  });
  return { job, leaderboard, miners };
}
