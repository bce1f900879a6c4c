import { type Clock, DAY_MS } from "../kernel/mod.ts";
import type { AgentStore, AgentVersion } from "../../storage/agent_store.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import type { ScoreStore } from "../../storage/score_store.ts";
import type { Leaderboard, LeaderboardNeuron } from "./leaderboard.ts";
import {
  minerIntervals,
  type MinerReportIntervals,
  type ReliabilityBin,
  reliabilityBins,
  type WeeklyBrier,
  weeklyBrier,
} from "./miner_figures.ts";
import { type MinerEventItem, minerEventItems } from "./miner_events.ts";

/** How long one miner's report is served (docs/scoring.md, "GET /v1/miners/{hotkey}"). */
export const MINER_CACHE_MS = 60_000;
/** The newest scored events a report lists (its figures cover every event of the window). */
export const MINER_EVENTS_LISTED = 100;
/** Reports (and unknown hotkeys) kept per instance; the least recently built goes first. */
const CACHED_MINERS = 256;

/** The window a report covers: the score table's, events resolved in (after, until]. */
export interface ReportWindow {
  computedAtMs: number;
  windowDays: number;
  resolvedAfterMs: number;
  resolvedUntilMs: number;
}

/** One miner's page: its standing, its figures over the window, its scored events and agents. */
export interface MinerReport {
  hotkey: string;
  builtAtMs: number;
  /** Its row of the leaderboard (1-based `rank` of `count`), when it is a forecasting miner. */
  standing: { rank: number; count: number; neuron: LeaderboardNeuron } | null;
  window: ReportWindow;
  /** Counted rows in the window (every uid of the hotkey when it is not on the board). */
  scoredEvents: number;
  intervals: MinerReportIntervals;
  reliability: ReliabilityBin[];
  brierOverTime: WeeklyBrier[];
  /** The newest `MINER_EVENTS_LISTED` of them. */
  events: MinerEventItem[];
  agents: { currentVersionId: string | null; versions: AgentVersion[] };
}

export interface MinerViewOptions {
  /** The instance's leaderboard view: the miner's standing and the window. */
  leaderboard: { current(): Promise<Leaderboard> };
  scores: Pick<ScoreStore, "minerRows" | "getEvents">;
  /** The listed rows' predictions: their market prices at prediction. */
  assignments: Pick<AssignmentStore, "scoringPredictionsOfEvents">;
  agents: Pick<AgentStore, "listVersions" | "minerState">;
  clock: Clock;
  /** Default `MINER_CACHE_MS`. */
  cacheMs?: number;
}

type Cached = { builtAtMs: number; report: MinerReport | null };

/**
 * One instance's miner reports, each built from the leaderboard view, the miner's stored rows in
 * the score table's window, their events and predictions, and its agent versions, then served for
 * `cacheMs` (concurrent callers of one hotkey share one build). A hotkey the service knows nothing
 * of (not on the board, no scored event in the window, no agent version) has no report (null).
 */
export class MinerView {
  readonly #options: MinerViewOptions;
  readonly #cache = new Map<string, Cached>();
  readonly #building = new Map<string, Promise<MinerReport | null>>();

  constructor(options: MinerViewOptions) {
    this.#options = options;
  }

  /** The report of `hotkey` (an SS58 address), built at most once per `cacheMs`; null for an unknown miner. */
  report(hotkey: string): Promise<MinerReport | null> {
    const now = this.#options.clock();
    const cached = this.#cache.get(hotkey);
    if (cached && now - cached.builtAtMs < (this.#options.cacheMs ?? MINER_CACHE_MS)) {
      return Promise.resolve(cached.report);
    }
    let building = this.#building.get(hotkey);
    if (!building) {
      building = this.#build(hotkey, now).finally(() => this.#building.delete(hotkey));
      this.#building.set(hotkey, building);
    }
    return building;
  }

  async #build(hotkey: string, nowMs: number): Promise<MinerReport | null> {
    const { leaderboard, scores, agents } = this.#options;
    const board = await leaderboard.current();
    const index = board.neurons.findIndex((neuron) => neuron.hotkey === hotkey);
    const neuron = board.neurons[index];
    const window = windowOf(board);
    const miner = neuron ? { hotkey, uid: neuron.uid } : { hotkey };
    const [rows, versions, state] = await Promise.all([
      scores.minerRows(miner, window),
      agents.listVersions(hotkey),
      agents.minerState(hotkey),
    ]);
    const known = neuron !== undefined || rows.length > 0 || versions.length > 0;
    const report = known
      ? {
        hotkey,
        builtAtMs: nowMs,
        standing: neuron ? { rank: index + 1, count: board.count, neuron } : null,
        window,
        scoredEvents: rows.length,
        intervals: minerIntervals(rows),
        reliability: reliabilityBins(rows),
        brierOverTime: weeklyBrier(rows),
        events: await this.#listed(rows.slice(0, MINER_EVENTS_LISTED)),
        agents: { currentVersionId: state?.currentVersionId ?? null, versions },
      }
      : null;
    this.#remember(hotkey, { builtAtMs: nowMs, report });
    return report;
  }

  async #listed(rows: Parameters<typeof minerEventItems>[0]): Promise<MinerEventItem[]> {
    const eventIds = [...new Set(rows.map((row) => row.eventId))];
    const [events, predictions] = await Promise.all([
      this.#options.scores.getEvents(eventIds),
      this.#options.assignments.scoringPredictionsOfEvents(eventIds),
    ]);
    return minerEventItems(rows, { events, predictions });
  }

  #remember(hotkey: string, entry: Cached): void {
    this.#cache.delete(hotkey);
    this.#cache.set(hotkey, entry);
    if (this.#cache.size > CACHED_MINERS) this.#cache.delete(this.#cache.keys().next().value!);
  }
}

/** The board's score-table window: events resolved in (computedAt − windowDays, computedAt]. */
function windowOf(board: Leaderboard): ReportWindow {
  const computedAtMs = Date.parse(board.scoringMeta.computedAt);
  const windowDays = board.scoringMeta.windowDays;
  return {
    computedAtMs,
    windowDays,
    resolvedAfterMs: computedAtMs - windowDays * DAY_MS,
    resolvedUntilMs: computedAtMs,
  };
}
