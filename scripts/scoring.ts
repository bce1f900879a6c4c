import type { Logger } from "../actors/kernel/mod.ts";
import { ScoringJob } from "../actors/scoring/mod.ts";
import type { Storage } from "../storage/storage.ts";
import type { Config } from "./config.ts";

/**
 * How long after an event settled a submission may still arrive: DESIGN §6's lease (10 min) plus
 * its grace (1 min). Pass `FGW_LEASE_MS + FGW_LEASE_GRACE_MS` once those settings exist.
 */
export const DEFAULT_LATE_SUBMISSION_MS = 11 * 60_000;

/** The scoring of one instance: the periodic job (run by whichever instance holds its lease). */
export interface ScoringWiring {
  job: ScoringJob;
}

export interface ScoringDeps {
  storage: Storage;
  log: Logger;
  /** Told when an event's settlement contradicts the one it was scored on (metrics). */
  onSettlementContradicted?: (eventId: string) => void;
  lateSubmissionMs?: number;
  /** After each completed run. */
  afterRun?: () => Promise<unknown>;
}

/** Wires scoring from config (`FGW_SCORING_*`, `FGW_NETUID`). */
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
    lateSubmissionMs: deps.lateSubmissionMs ?? DEFAULT_LATE_SUBMISSION_MS,
    log: deps.log,
    ...(deps.onSettlementContradicted ? { onSettlementContradicted: deps.onSettlementContradicted } : {}),
    ...(deps.afterRun ? { afterRun: deps.afterRun } : {}),
  });
  return { job };
}
