/**
 * The leaderboard's baselines (not part of scorer v1): two forecasters that are not miners, scored
 * by scorer v1's own per-prediction and per-miner functions over every event scored in the window,
 * with no edge and no payout.
 *
 * - `market`: the market price at admission (normalised), on every scored event;
 * - `consensus`: the customer consensus at its last history point before the event's `resolvedAt`,
 *   on the events that have such a point with a forecast.
 */
import type { ForecastPoint } from "../../storage/forecast_history_store.ts";
import type { ScoredEventRecord } from "../../storage/score_store.ts";
import { isoAt } from "../kernel/mod.ts";
import { publishedInterval } from "./board_intervals.ts";
import type { MeanInterval } from "./page_interval.ts";
import { MinerFold, minerRowValuesOf } from "./miner_fold.ts";
import { scorePrediction } from "./prediction_score.ts";
import type { ScorerEvent, ScorerPrediction } from "./scorer_input.ts";
import { normalise } from "./scoring_math.ts";
import { scorerEventOf } from "./stored_scoring.ts";

export type BaselineName = "market" | "consensus";

/**
 * A baseline's row: the scorer's per-miner values that need neither an edge nor a payout. Its
 * figures are null without a valid prediction (the scorer's fold gives 0 there, which would read
 * as a perfect Brier).
 */
export interface BaselineScoring {
  name: BaselineName;
  /** Events scored in the window (the baseline predicted `preds` of them). */
  events: number;
  preds: number;
  validPreds: number;
  invalidPreds: number;
  brier: number | null;
  brierInterval: MeanInterval | null;
  weightedBrier: number | null;
  accuracy: number | null;
  calibration: number | null;
}

/** The hotkey a baseline's predictions carry (it is no miner: it never meets a registration). */
const BASELINE_HOTKEY = "baseline";

/** The scorer's event of a scored-event record, under the settlement it was scored against. */
export function baselineEventOf(record: ScoredEventRecord): ScorerEvent {
  return scorerEventOf(record, {
    winningOutcomeId: record.winningOutcomeId,
    resolvedAtMs: record.resolvedAtMs,
  });
}

/** A prediction of `probabilities` naming the likeliest outcome (the first in outcome order on ties). */
function baselinePrediction(
  name: BaselineName,
  event: ScorerEvent,
  made: { probabilities: Record<string, number>; atMs: number; prices: Record<string, number> | null },
): ScorerPrediction {
  let pick = { outcomeId: event.outcomes[0]!.outcomeId, p: -Infinity };
  for (const { outcomeId } of event.outcomes) {
    const p = made.probabilities[outcomeId] ?? 0;
    if (p > pick.p) pick = { outcomeId, p };
  }
  return {
    agentPredictionId: `${name}:${event.id}`,
    eventId: event.id,
    minerHotkey: BASELINE_HOTKEY,
    minerUid: null,
    predictedAt: isoAt(made.atMs),
    predictedOutcomeId: pick.outcomeId,
    confidence: pick.p,
    outcomeProbabilities: made.probabilities,
    outcomePricesAtPrediction: made.prices,
    predictionIsInvalid: false,
  };
}

/**
 * The market baseline's prediction: the admission prices divided by their sum (as the scorer's m′),
 * made at the event's deadline (its end, or its resolution when earlier): the admission time is
 * not stored with a scored event, and any time up to the deadline is in time.
 */
export function marketPrediction(event: ScorerEvent): ScorerPrediction | null {
  const ids = event.outcomes.map((outcome) => outcome.outcomeId);
  const market = normalise(event.outcomePricesAtAdmission, ids);
  if (market === null) return null;
  const deadlineMs = Math.min(Date.parse(event.endDate), Date.parse(event.resolution.resolvedAt!));
  return baselinePrediction("market", event, {
    probabilities: Object.fromEntries(market),
    atMs: deadlineMs,
    prices: null,
  });
}

/** The consensus baseline's prediction: the point's forecast, at the point's time; none without one. */
export function consensusPrediction(
  event: ScorerEvent,
  point: ForecastPoint | null,
): ScorerPrediction | null {
  if (point === null || point.forecast === null) return null;
  return baselinePrediction("consensus", event, {
    probabilities: point.forecast,
    atMs: point.atMs,
    prices: point.market,
  });
}

/**
 * One baseline over the window's scored events, given in the order of a miner's sums (ascending
 * `resolvedAt`, then event id): each event with the baseline's prediction on it, or none.
 */
export class BaselineFold {
  readonly #name: BaselineName;
  readonly #fold: MinerFold;
  readonly #briers: number[] = [];
  #events = 0;

  constructor(name: BaselineName, computedAtMs: number) {
    this.#name = name;
    this.#fold = new MinerFold(computedAtMs);
  }

  add(event: ScorerEvent, prediction: ScorerPrediction | null): void {
    this.#events += 1;
    if (prediction === null) return;
    const scored = scorePrediction(prediction, event);
    this.#fold.add(minerRowValuesOf(scored));
    if (scored.scored !== null) this.#briers.push(scored.scored.brier);
  }

  result(): BaselineScoring {
    // The first-seen time only sets `ageHours`, which a baseline does not show.
    const { scoring } = this.#fold.result(0);
    const figure = (value: number) => scoring.validPreds === 0 ? null : value;
    return {
      name: this.#name,
      events: this.#events,
      preds: scoring.preds,
      validPreds: scoring.validPreds,
      invalidPreds: scoring.invalidPreds,
      brier: figure(scoring.brier),
      brierInterval: publishedInterval(this.#briers),
      weightedBrier: figure(scoring.weightedBrier),
      accuracy: figure(scoring.accuracy),
      calibration: figure(scoring.calibration),
    };
  }
}
