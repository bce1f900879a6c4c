/**
 * Scorer v1 as a stream: events are scored one at a time (each with all its predictions), and
 * the counted rows in the window are folded into one `MinerFold` per registration as they come.
 * Nothing but the current event and the miners' running sums is held, whatever the number of
 * predictions. The scoring job uses the same two steps: `scoreEventPredictions` for each event it
 * scores, and a `ScoreTableFold` over the stored counted rows of the window for the score table.
 *
 * Order: a miner's sums run over its rows by ascending `resolvedAt`, then event id (docs/scoring.md,
 * "Determinism"), so resolved events must come in that order (`compareEventsForStream`); a fold throws a
 * RangeError on a row out of order rather than give different numbers.
 */
import type { ScorerEvent, ScorerPayout, ScorerPrediction } from "./scorer_input.ts";
import { eventFactsOf, type ScoredPrediction, scorePrediction } from "./prediction_score.ts";
import { countedPredictions } from "./latest_rule.ts";
import { type EventResult, scoreEvent } from "./event_stats.ts";
import { MinerFold, type MinerRowValues, minerRowValuesOf, type MinerScore } from "./miner_fold.ts";
import { forecastingPayouts } from "./payouts.ts";
import { compareCodePoints } from "./scoring_math.ts";
import type { MinerScoring } from "./miner_scoring.ts";
import { DAY_MS } from "../kernel/mod.ts";

/**
 * Scorer v1's window: a miner's rows are its counted rows on events resolved in the last this many
 * days (`windowDays` is an input of the scorer; a deployment sets its own, default this).
 */
export const WINDOW_DAYS = 30;

/** One event scored: every prediction, the counted ones, and (when resolved) the event's result. */
export interface EventScoring {
  /** Every prediction of the event, validated and scored, in the order given. */
  scored: ScoredPrediction[];
  /** The latest prediction of each (hotkey, uid): the rows the event's stats and the table use. */
  counted: ScoredPrediction[];
  /** Null unless the event is resolved. */
  result: EventResult | null;
}

/** Scores one event with all its predictions (docs/scoring.md "Per prediction", latest rule, "Per event"). */
export function scoreEventPredictions(
  event: ScorerEvent,
  predictions: readonly ScorerPrediction[],
): EventScoring {
  const facts = eventFactsOf(event);
  const scored = predictions.map((prediction) => scorePrediction(prediction, event, facts));
  const counted = countedPredictions(scored);
  const resolved = event.resolution.resolutionStatus === "resolved";
  return { scored, counted, result: resolved ? scoreEvent(event, counted) : null };
}

/** The order events are streamed in: resolved ones by `resolvedAt`, then id; others first. */
export function compareEventsForStream(a: ScorerEvent, b: ScorerEvent): number {
  const at = (event: ScorerEvent) =>
    event.resolution.resolutionStatus === "resolved" && event.resolution.resolvedAt !== null
      ? Date.parse(event.resolution.resolvedAt)
      : -Infinity;
  const d = at(a) - at(b);
  return (Number.isNaN(d) ? 0 : d) || compareCodePoints(a.id, b.id);
}

/** A (hotkey, uid) registration, first seen by the metagraph sync at `firstSeenAtMs`. */
export interface TableRegistration {
  hotkey: string;
  uid: number;
  firstSeenAtMs: number;
}

/** A counted row as the table reads it: its miner, its place in the order and its values. */
export interface TableRowInput extends MinerRowValues {
  minerHotkey: string;
  minerUid: number | null;
}

/** One registration's row of the table. */
export type TableFoldRow = TableRegistration & MinerScore;

/**
 * The score table at `computedAtMs` as a fold: counted rows are added in the miner order; rows
 * resolved outside `(computedAt − windowDays, computedAt]` or of a (hotkey, uid) that is not a
 * registration are left out.
 */
export class ScoreTableFold {
  readonly #registrations: readonly TableRegistration[];
  readonly #folds = new Map<string, MinerFold>();
  readonly #startMs: number;
  readonly #endMs: number;

  constructor(
    registrations: readonly TableRegistration[],
    window: { computedAtMs: number; windowDays: number },
  ) {
    this.#registrations = registrations.toSorted((a, b) => a.uid - b.uid);
    for (const { hotkey, uid } of registrations) {
      this.#folds.set(minerKey(hotkey, uid), new MinerFold(window.computedAtMs));
    }
    this.#endMs = window.computedAtMs;
    this.#startMs = window.computedAtMs - window.windowDays * DAY_MS;
  }

  add(row: TableRowInput): void {
    if (row.resolvedAtMs <= this.#startMs || row.resolvedAtMs > this.#endMs) return;
    this.#folds.get(minerKey(row.minerHotkey, row.minerUid))?.add(row);
  }

  /** One row per registration, by uid. */
  rows(): TableFoldRow[] {
    return this.#registrations.map((registration) => {
      const fold = this.#folds.get(minerKey(registration.hotkey, registration.uid))!;
      return { ...registration, ...fold.result(registration.firstSeenAtMs) };
    });
  }
}

function minerKey(hotkey: string, uid: number | null): string {
  return `${uid}\u0000${hotkey}`;
}

/** A registered miner's leaderboard numbers. */
export interface MinerResult {
  uid: number;
  scoring: MinerScoring;
  forecastingIncentive: number;
  forecastingAlphaPerDay: number;
  forecastingUsdPerDay: number;
}

/** What the stream gives once every event is in: the miners (by hotkey) and the budget. */
export interface StreamTotals {
  miners: Record<string, MinerResult>;
  forecastingBudgetAlphaPerDay: number;
}

/**
 * Scorer v1 over events given one at a time, each with all its predictions, resolved events in
 * the stream order (`compareEventsForStream`): `addEvent` returns the event's scoring (the caller
 * keeps what it needs of it), `finish` the miners' rows and payouts.
 */
export class ScorerV1Stream {
  readonly #table: ScoreTableFold;

  constructor(options: {
    computedAtMs: number;
    windowDays: number;
    registrations: readonly TableRegistration[];
  }) {
    this.#table = new ScoreTableFold(options.registrations, options);
  }

  addEvent(event: ScorerEvent, predictions: readonly ScorerPrediction[]): EventScoring {
    const scoring = scoreEventPredictions(event, predictions);
    if (scoring.result !== null) {
      for (const row of scoring.counted) {
        const { minerHotkey, minerUid } = row.prediction;
        this.#table.add({ minerHotkey, minerUid, ...minerRowValuesOf(row) });
      }
    }
    return scoring;
  }

  finish(payout: ScorerPayout): StreamTotals {
    const rows = this.#table.rows();
    const payouts = forecastingPayouts(
      rows.map(({ uid, unroundedScore }) => ({ uid, score: unroundedScore })),
      payout,
    );
    const miners = Object.fromEntries(rows.map(({ hotkey, uid, scoring }) => {
      return [hotkey, { uid, scoring, ...payouts.miners.get(uid)! }];
    }));
    return { miners, forecastingBudgetAlphaPerDay: payouts.forecastingBudgetAlphaPerDay };
  }
}
