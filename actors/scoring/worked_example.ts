/**
 * The worked example of the methodology (docs/scoring.md, "Methodology"): a small fixed scorer
 * input — six events, three miners, sixteen predictions — scored by scorer v1 itself, with what
 * the page adds to it (each event's row weight, which predictions count, and the 95 % intervals
 * the pages show, which are not part of scorer v1).
 */
import { DAY_MS, isoAt } from "../kernel/mod.ts";
import { rowWeight } from "./miner_fold.ts";
import { type MeanInterval, meanInterval } from "./page_interval.ts";
import { scoreEventPredictions, WINDOW_DAYS } from "./score_stream.ts";
import type { ScorerEvent, ScorerInput, ScorerPrediction } from "./scorer_input.ts";
import { type ScorerOutput, scoreV1 } from "./score_v1.ts";
import { r6 } from "./scoring_math.ts";

const COMPUTED_AT_MS = Date.UTC(2026, 10, 20, 12);
const HOUR_MS = DAY_MS / 24;

/** The example's miners: hotkey labels (real hotkeys are SS58 addresses) by uid. */
const MINERS = { 1: "example-miner-a", 2: "example-miner-b", 3: "example-miner-c" } as const;
type Uid = keyof typeof MINERS;

/** The example events' questions (the scorer reads none), by event id. */
const QUESTIONS: Record<string, string> = {
  "ex-1": "Will the bill pass by Friday?",
  "ex-2": "Will the launch happen this month?",
  "ex-3": "Will the home team win the final?",
  "ex-4": "Will the central bank cut its rate?",
  "ex-5": "Will the index close above 5,000?",
  "ex-6": "Will the merger close?",
};

/** An event resolved `daysAgo` days before `computedAt`, with its winner and admission price of Yes. */
function event(id: string, daysAgo: number, winner: "yes" | "no", yes: number): ScorerEvent {
  const resolvedAtMs = COMPUTED_AT_MS - daysAgo * DAY_MS;
  return {
    id,
    outcomes: [{ outcomeId: "yes", name: "Yes" }, { outcomeId: "no", name: "No" }],
    endDate: isoAt(resolvedAtMs),
    outcomePricesAtAdmission: { yes, no: r6(1 - yes) },
    resolution: { resolutionStatus: "resolved", winningOutcomeId: winner, resolvedAt: isoAt(resolvedAtMs) },
  };
}

const EVENTS: ScorerEvent[] = [
  event("ex-1", 2, "yes", 0.6),
  event("ex-2", 5, "no", 0.35),
  event("ex-3", 9, "yes", 0.5),
  event("ex-4", 13, "yes", 0.7),
  event("ex-5", 20, "no", 0.55),
  event("ex-6", 45, "yes", 0.5),
];

interface Forecast {
  /** p(Yes); p(No) is `1 − yes` unless `no` says otherwise. */
  yes: number;
  no?: number;
  /** Hours before the event's resolution (negative: after it). */
  hoursBefore: number;
  /** The market's p(Yes) handed out with the lease. */
  market: number;
  flagged?: boolean;
}

/** One prediction of miner `uid` on event `eventId`; the predicted outcome is the likelier one. */
function prediction(id: string, eventId: string, uid: Uid, forecast: Forecast): ScorerPrediction {
  const resolvedAt = EVENTS.find((e) => e.id === eventId)!.resolution.resolvedAt!;
  const no = forecast.no ?? r6(1 - forecast.yes);
  return {
    agentPredictionId: id,
    eventId,
    minerHotkey: MINERS[uid],
    minerUid: uid,
    predictedAt: isoAt(Date.parse(resolvedAt) - forecast.hoursBefore * HOUR_MS),
    predictedOutcomeId: forecast.yes >= no ? "yes" : "no",
    confidence: Math.max(forecast.yes, no),
    outcomeProbabilities: { yes: forecast.yes, no },
    outcomePricesAtPrediction: { yes: forecast.market, no: r6(1 - forecast.market) },
    predictionIsInvalid: forecast.flagged ?? false,
  };
}

const PREDICTIONS: ScorerPrediction[] = [
  // Miner a: further from the market than it, mostly towards the winner.
  prediction("a-1", "ex-1", 1, { yes: 0.8, hoursBefore: 30, market: 0.62 }),
  prediction("a-2", "ex-2", 1, { yes: 0.15, hoursBefore: 20, market: 0.3 }),
  prediction("a-3", "ex-3", 1, { yes: 0.65, hoursBefore: 40, market: 0.5 }),
  prediction("a-4", "ex-4", 1, { yes: 0.6, hoursBefore: 12, market: 0.72 }),
  prediction("a-5", "ex-5", 1, { yes: 0.4, hoursBefore: 26, market: 0.55 }),
  prediction("a-6", "ex-6", 1, { yes: 0.7, hoursBefore: 24, market: 0.5 }),
  // Miner b: close to the market.
  prediction("b-1", "ex-1", 2, { yes: 0.65, hoursBefore: 28, market: 0.62 }),
  prediction("b-2", "ex-2", 2, { yes: 0.3, hoursBefore: 22, market: 0.3 }),
  prediction("b-3", "ex-3", 2, { yes: 0.55, hoursBefore: 36, market: 0.5 }),
  prediction("b-4", "ex-4", 2, { yes: 0.75, hoursBefore: 10, market: 0.72 }),
  prediction("b-5", "ex-5", 2, { yes: 0.55, hoursBefore: 30, market: 0.55 }),
  // Miner c: changes its mind on ex-1 (the later one counts), then three invalid predictions.
  prediction("c-1", "ex-1", 3, { yes: 0.3, hoursBefore: 50, market: 0.6 }),
  prediction("c-1b", "ex-1", 3, { yes: 0.7, hoursBefore: 6, market: 0.64 }),
  prediction("c-2", "ex-2", 3, { yes: 0.2, hoursBefore: 18, market: 0.3, flagged: true }),
  prediction("c-3", "ex-3", 3, { yes: 0.6, no: 0.45, hoursBefore: 30, market: 0.5 }),
  prediction("c-4", "ex-4", 3, { yes: 0.8, hoursBefore: -2, market: 0.72 }),
];

/** The example's scorer input (a fixed `computedAt`, scorer v1's window). */
export const WORKED_EXAMPLE_INPUT: ScorerInput = {
  computedAt: isoAt(COMPUTED_AT_MS),
  windowDays: WINDOW_DAYS,
  events: EVENTS,
  predictions: PREDICTIONS,
  registrations: [
    { hotkey: MINERS[1], uid: 1, firstSeenAt: isoAt(COMPUTED_AT_MS - 60 * DAY_MS) },
    { hotkey: MINERS[2], uid: 2, firstSeenAt: isoAt(COMPUTED_AT_MS - 40 * DAY_MS) },
    { hotkey: MINERS[3], uid: 3, firstSeenAt: isoAt(COMPUTED_AT_MS - 10 * DAY_MS) },
  ],
  payout: { minerAlphaPerDay: 2952, forecastingWeightShare: 0.5, alphaUsd: 3.93174375 },
};

/** A miner's 95 % intervals over its valid rows in the window (null below the minimum count). */
export interface ExampleIntervals {
  brier: MeanInterval | null;
  edge: MeanInterval | null;
}

/** The example: its input, scorer v1's output, and what the page shows beside it. */
export interface WorkedExample {
  input: ScorerInput;
  /** By event id: the question (the scorer reads none). */
  questions: Record<string, string>;
  output: ScorerOutput;
  /** By event id: whether it resolved inside the window, and then its row weight `r6(w)` at `computedAt`. */
  events: Record<string, { inWindow: boolean; weight: number | null }>;
  /** The agentPredictionIds the latest rule counts, in input order. */
  counted: string[];
  /** By hotkey: the intervals the pages show (not part of scorer v1). */
  intervals: Record<string, ExampleIntervals>;
}

function windowFacts(input: ScorerInput): WorkedExample["events"] {
  const computedAtMs = Date.parse(input.computedAt);
  const startMs = computedAtMs - input.windowDays * DAY_MS;
  return Object.fromEntries(input.events.map((e) => {
    const resolvedAtMs = Date.parse(e.resolution.resolvedAt!);
    const inWindow = resolvedAtMs > startMs && resolvedAtMs <= computedAtMs;
    return [e.id, { inWindow, weight: inWindow ? r6(rowWeight(resolvedAtMs, computedAtMs)) : null }];
  }));
}

function intervalsOf(
  input: ScorerInput,
  output: ScorerOutput,
  counted: readonly string[],
  events: WorkedExample["events"],
) {
  const byId = new Map(input.predictions.map((p) => [p.agentPredictionId, p]));
  return Object.fromEntries(input.registrations.map(({ hotkey }) => {
    const rows = counted.map((id) => byId.get(id)!)
      .filter((p) => p.minerHotkey === hotkey && events[p.eventId]!.inWindow)
      .map((p) => output.predictions[p.agentPredictionId]!)
      .filter((result) => result.isValid);
    return [hotkey, {
      brier: meanInterval(rows.map((row) => row.brier!)),
      edge: meanInterval(rows.map((row) => row.marketBrier! - row.brier!)),
    }];
  }));
}

/** The worked example scored by scorer v1's own functions (`scoreV1`, `scoreEventPredictions`). */
export function workedExample(input: ScorerInput = WORKED_EXAMPLE_INPUT): WorkedExample {
  const output = scoreV1(input);
  const counted = input.events.flatMap((e) =>
    scoreEventPredictions(e, input.predictions.filter((p) => p.eventId === e.id)).counted
      .map((row) => row.prediction.agentPredictionId)
  );
  const order = new Map(input.predictions.map((p, i) => [p.agentPredictionId, i]));
  counted.sort((a, b) => order.get(a)! - order.get(b)!);
  const events = windowFacts(input);
  const questions = Object.fromEntries(input.events.map((e) => [e.id, QUESTIONS[e.id] ?? e.id]));
  return {
    input,
    questions,
    output,
    events,
    counted,
    intervals: intervalsOf(input, output, counted, events),
  };
}
