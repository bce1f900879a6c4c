/**
 * What the leaderboard shows beside the score table, read from the scored rows of its window in
 * one pass: the miners' 95 % intervals, the baselines and the window's counts. The counted rows
 * are read in pages of whole events in the order of a miner's sums (`ScoreStore.windowRows`, as
 * the score table reads them), each page's event records in one call, and the consensus
 * baseline's history point of each event.
 */
import type { ForecastHistoryStore, ForecastPoint } from "../../storage/forecast_history_store.ts";
import type { ScoredEventRecord, ScoreStore, WindowRow } from "../../storage/score_store.ts";
import { DAY_MS, isoAt } from "../kernel/mod.ts";
import {
  baselineEventOf,
  BaselineFold,
  type BaselineScoring,
  consensusPrediction,
  marketPrediction,
} from "./baselines.ts";
import { IntervalFold, type MinerIntervals } from "./board_intervals.ts";

/** Events per page of window rows. */
const WINDOW_PAGE_EVENTS = 500;
/** Consensus history reads at a time. */
const HISTORY_READS = 8;
/**
 * How far before an event stopped being live (its end, or its resolution when earlier) its
 * consensus point is looked for: the snapshot job records one every hour while it is live.
 */
const CONSENSUS_LOOKBACK_MS = 2 * DAY_MS;

/** The window the board's figures are over: `(from, to]` by resolution time, and what it holds. */
export interface BoardWindow {
  from: string;
  to: string;
  /** Scored events resolved in the window. */
  scoredEvents: number;
  /** Their counted predictions (each miner's latest on an event), every miner's. */
  countedPredictions: number;
}

export interface WindowFigures {
  window: BoardWindow;
  /** By `registrationKey(uid, hotkey)`; a registration without valid rows has none. */
  intervals: Map<string, MinerIntervals>;
  /** `market`, then `consensus`. */
  baselines: BaselineScoring[];
}

export interface WindowFiguresDeps {
  scores: Pick<ScoreStore, "windowRows" | "getEvents">;
  history: Pick<ForecastHistoryStore, "listPoints">;
}

/** The figures over the window `(computedAt − windowDays, computedAt]`. */
export async function computeWindowFigures(
  deps: WindowFiguresDeps,
  window: { computedAtMs: number; windowDays: number },
): Promise<WindowFigures> {
  const page = {
    resolvedAfterMs: window.computedAtMs - window.windowDays * DAY_MS,
    resolvedUntilMs: window.computedAtMs,
    events: WINDOW_PAGE_EVENTS,
  };
  const pass = new WindowPass(deps, window.computedAtMs);
  let reading = deps.scores.windowRows(page);
  for (;;) {
    const { rows, next } = await reading;
    if (next !== null) reading = deps.scores.windowRows({ ...page, after: next });
    await pass.add(rows);
    if (next === null) break;
  }
  return {
    window: { from: isoAt(page.resolvedAfterMs), to: isoAt(page.resolvedUntilMs), ...pass.counts() },
    intervals: pass.intervals.result(),
    baselines: [pass.market.result(), pass.consensus.result()],
  };
}

/** The folds of one window, fed a page of rows (whole events, in order) at a time. */
class WindowPass {
  readonly intervals = new IntervalFold();
  readonly market: BaselineFold;
  readonly consensus: BaselineFold;
  readonly #deps: WindowFiguresDeps;
  #events = 0;
  #rows = 0;

  constructor(deps: WindowFiguresDeps, computedAtMs: number) {
    this.#deps = deps;
    this.market = new BaselineFold("market", computedAtMs);
    this.consensus = new BaselineFold("consensus", computedAtMs);
  }

  counts(): { scoredEvents: number; countedPredictions: number } {
    return { scoredEvents: this.#events, countedPredictions: this.#rows };
  }

  async add(rows: readonly WindowRow[]): Promise<void> {
    for (const row of rows) this.intervals.add(row);
    this.#rows += rows.length;
    const ids = [...new Set(rows.map((row) => row.eventId))];
    const records = new Map((await this.#deps.scores.getEvents(ids)).map((r) => [r.eventId, r]));
    const ordered = ids.flatMap((id) => records.get(id) ?? []);
    const points = await lastPoints(this.#deps.history, ordered);
    ordered.forEach((record, index) => {
      const event = baselineEventOf(record);
      this.market.add(event, marketPrediction(event));
      this.consensus.add(event, consensusPrediction(event, points[index]!));
    });
    this.#events += ordered.length;
  }
}

/** Each event's last history point before its `resolvedAt` (null without one), `HISTORY_READS` at a time. */
async function lastPoints(
  history: WindowFiguresDeps["history"],
  records: readonly ScoredEventRecord[],
): Promise<(ForecastPoint | null)[]> {
  const points: (ForecastPoint | null)[] = new Array(records.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < records.length) {
      const index = next++;
      const record = records[index]!;
      const liveUntilMs = Math.min(Date.parse(record.endDate), record.resolvedAtMs);
      const range = { fromMs: liveUntilMs - CONSENSUS_LOOKBACK_MS, toMs: record.resolvedAtMs - 1 };
      points[index] = (await history.listPoints(record.eventId, range)).at(-1) ?? null;
    }
  };
  await Promise.all(Array.from({ length: Math.min(HISTORY_READS, records.length) }, worker));
  return points;
}
