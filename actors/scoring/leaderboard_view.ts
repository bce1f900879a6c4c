import type { Clock } from "../kernel/mod.ts";
import type { MetagraphReader, PriceReader } from "./board_inputs.ts";
import type { OrgStore } from "../../storage/org_store.ts";
import type { ScoreStore, ScoreTable } from "../../storage/score_store.ts";
import type { ForecastHistoryStore } from "../../storage/forecast_history_store.ts";
import { buildLeaderboard, type Leaderboard } from "./leaderboard.ts";
import { computedAtOf } from "./scoring_job.ts";
import { computeWindowFigures, type WindowFigures } from "./window_figures.ts";
import type { ScoringSettings } from "./methodology.ts";

/** How long one built board is served by default (`FGW_LEADERBOARD_CACHE_MS`; docs/scoring.md, "Caching"). */
export const LEADERBOARD_CACHE_MS = 60_000;

export interface LeaderboardViewOptions {
  /** This instance's metagraph view (chain metrics, registrations, staleness). */
  metagraph: MetagraphReader;
  /** This instance's price view. */
  prices: PriceReader;
  scores: Pick<ScoreStore, "getTable" | "windowRows" | "getEvents">;
  /** The consensus history (the consensus baseline's points). */
  history: Pick<ForecastHistoryStore, "listPoints">;
  orgs: Pick<OrgStore, "minerRegistration">;
  clock: Clock;
  /** `FGW_FORECASTING_WEIGHT_SHARE`. */
  forecastingWeightShare: number;
  /** `FGW_SCORING_WINDOW_DAYS` (shown until the first score table, which carries its own). */
  windowDays: number;
  /** `FGW_SCORING_INTERVAL_MS`. */
  scoringIntervalMs: number;
  /** Default `LEADERBOARD_CACHE_MS`. */
  cacheMs?: number;
}

/**
 * One instance's leaderboard: built from the metagraph view, the price view, the stored score
 * table and the organisations' miner registrations, and served for `cacheMs` (concurrent callers
 * share one build). The board's subnet is the metagraph view's. The figures over the table's
 * window (intervals, baselines, counts) are read once per window: again only when a scoring run
 * stored a table with another `computedAt`.
 */
export class LeaderboardView {
  readonly #options: LeaderboardViewOptions;
  #board: { builtAtMs: number; board: Leaderboard } | null = null;
  #building: Promise<Leaderboard> | null = null;
  #figures: { key: string; figures: WindowFigures } | null = null;

  constructor(options: LeaderboardViewOptions) {
    this.#options = options;
  }

  get netuid(): number {
    return this.#options.metagraph.netuid;
  }

  /** The deployment's settings the board is built with (its running configuration). */
  get settings(): ScoringSettings {
    const { windowDays, scoringIntervalMs, forecastingWeightShare } = this.#options;
    return { windowDays, scoringIntervalMs, forecastingWeightShare };
  }

  /** How long one built board is served (`FGW_LEADERBOARD_CACHE_MS`); 0: built on every read. */
  get cacheMs(): number {
    return this.#options.cacheMs ?? LEADERBOARD_CACHE_MS;
  }

  /** The board, built at most once per `cacheMs`. */
  current(): Promise<Leaderboard> {
    const now = this.#options.clock();
    const cached = this.#board;
    if (cached && now - cached.builtAtMs < this.cacheMs) {
      return Promise.resolve(cached.board);
    }
    this.#building ??= this.#build(now).finally(() => this.#building = null);
    return this.#building;
  }

  async #build(nowMs: number): Promise<Leaderboard> {
    const { metagraph, prices, scores, orgs } = this.#options;
    const neurons = metagraph.metagraph?.neurons ?? [];
    const [table, registered] = await Promise.all([
      scores.getTable(),
      Promise.all(
        neurons.map(async (n) => (await orgs.minerRegistration(n.hotkey)) === null ? [] : [n.hotkey]),
      ),
    ]);
    const current = prices.current();
    const fallbackComputedAtMs = computedAtOf(nowMs, this.#options.scoringIntervalMs);
    const figures = await this.#windowFigures(table, fallbackComputedAtMs);
    const board = buildLeaderboard({
      netuid: metagraph.netuid,
      neurons,
      forecasting: new Set(registered.flat()),
      table,
      fallbackComputedAtMs,
      windowDays: this.#options.windowDays,
      forecastingWeightShare: this.#options.forecastingWeightShare,
      prices: current.prices,
      stale: metagraph.status(nowMs) !== "fresh" || current.stale,
      nowMs,
      figures,
    });
    this.#board = { builtAtMs: nowMs, board };
    return board;
  }

  /** The figures over the table's window (the current interval's before the first table), memoised. */
  async #windowFigures(table: ScoreTable | null, fallbackComputedAtMs: number): Promise<WindowFigures> {
    const window = {
      computedAtMs: table?.computedAtMs ?? fallbackComputedAtMs,
      windowDays: table?.windowDays ?? this.#options.windowDays,
    };
    const key = `${window.computedAtMs}/${window.windowDays}`;
    if (this.#figures?.key === key) return this.#figures.figures;
    const { scores, history } = this.#options;
    const figures = await computeWindowFigures({ scores, history }, window);
    this.#figures = { key, figures };
    return figures;
  }
}
