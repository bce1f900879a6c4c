import type { CatalogSnapshot } from "../../actors/catalog/mod.ts";
import { type Clock, isoAt } from "../../actors/kernel/mod.ts";
import type { Leaderboard } from "../../actors/scoring/mod.ts";

/** The service's live figures (`GET /v1/overview`, the home page). */
export interface Overview {
  updatedAt: string;
  /** Events `GET /v1/events` lists by default: `endDate` in the future. */
  eventsLive: number;
  /** Forecasting miners on the leaderboard. */
  miners: number;
  /** Of those, the ones with a counted prediction in the scoring window. */
  minersScored: number;
  /** Counted predictions on events resolved in the window (every miner's). */
  predictionsInWindow: number;
  scoredEventsInWindow: number;
  windowDays: number;
  /** The computedAt of the last scoring run's table; null before the first run. */
  lastScoringRun: string | null;
  /** The leaderboard's `stale`: the metagraph or the prices are stale. */
  stale: boolean;
}

/** How long one overview is served. */
export const OVERVIEW_CACHE_MS = 5_000;

export interface OverviewSourceOptions {
  catalog: { current(): CatalogSnapshot };
  leaderboard: { current(): Promise<Leaderboard> };
  clock: Clock;
  /** Default `OVERVIEW_CACHE_MS`. */
  cacheMs?: number;
}

/**
 * The overview, built from the catalog view and the leaderboard view (the same objects their JSON
 * routes read) and served for `cacheMs`; the object stays the same while it is served, so what is
 * rendered from it can be cached with it.
 */
export class OverviewSource {
  readonly #options: OverviewSourceOptions;
  #kept: { untilMs: number; overview: Overview } | null = null;

  constructor(options: OverviewSourceOptions) {
    this.#options = options;
  }

  async current(): Promise<Overview> {
    const nowMs = this.#options.clock();
    if (this.#kept && nowMs < this.#kept.untilMs) return this.#kept.overview;
    const board = await this.#options.leaderboard.current();
    const overview = overviewOf(board, this.#options.catalog.current(), nowMs);
    this.#kept = { untilMs: nowMs + (this.#options.cacheMs ?? OVERVIEW_CACHE_MS), overview };
    return overview;
  }
}

function overviewOf(board: Leaderboard, catalog: CatalogSnapshot, nowMs: number): Overview {
  return {
    updatedAt: isoAt(nowMs),
    eventsLive: liveEvents(catalog, nowMs),
    miners: board.count,
    minersScored: board.neurons.filter((n) => n.scoring.preds > 0).length,
    predictionsInWindow: board.window.countedPredictions,
    scoredEventsInWindow: board.window.scoredEvents,
    windowDays: board.scoringMeta.windowDays,
    lastScoringRun: board.window.lastRunAt,
    stale: board.stale,
  };
}

/** Events ending after `nowMs`: the end of the catalog's end-date order. */
function liveEvents(catalog: CatalogSnapshot, nowMs: number): number {
  const byEnd = catalog.sorted("endDate");
  let live = 0;
  for (let i = byEnd.length - 1; i >= 0 && byEnd[i]!.endMs > nowMs; i--) live += 1;
  return live;
}
