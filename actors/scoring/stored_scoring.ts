/**
 * Scorer v1 over stored rows: a resolved event's stored predictions become its scored-event
 * record and scored prediction rows (what the scoring job stores), and a miner's stored rows
 * become its score-table row. Pure: the same scorer functions as `deno task score`, fed with the
 * same inputs (SCORING.md input fields), so the feed plus the CLI reproduce what is stored.
 */
import { isoAt } from "../kernel/mod.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { StoredPrediction } from "../../storage/assignment_record.ts";
import type {
  ScoredEventRecord,
  ScoredPredictionInput,
  ScoredPredictionRecord,
  ScoreTableRow,
} from "../../storage/score_store.ts";
import type { ScorerEvent, ScorerPrediction } from "./scorer_input.ts";
import { type ScoredPrediction, scorePrediction } from "./prediction_score.ts";
import { countedPredictions } from "./latest_rule.ts";
import { scoreEvent } from "./event_stats.ts";
import { scoreMiner } from "./miner_scoring.ts";

/** The resolution an event is scored against: once scored, it is final. */
export interface FinalResolution {
  winningOutcomeId: string;
  resolvedAtMs: number;
}

/** What the scorer reads of a stored prediction (the agent's flag, never the stored verdict). */
export function scorerInputOf(prediction: StoredPrediction): ScoredPredictionInput {
  const { reported } = prediction;
  return {
    predictedOutcomeId: reported.predictedOutcomeId,
    confidence: typeof reported.confidence === "number" ? reported.confidence : null,
    outcomeProbabilities: reported.outcomeProbabilities,
    outcomePricesAtPrediction: prediction.outcomePricesAtPrediction,
    predictionIsInvalid: reported.executionMetadata.predictionIsInvalid === true,
  };
}

/** The scorer's event: the catalog event under its final resolution. */
export function scorerEventOf(
  event: Pick<ScoredEventRecord, "eventId" | "outcomes" | "endDate" | "outcomePricesAtAdmission">,
  resolution: FinalResolution,
): ScorerEvent {
  return {
    id: event.eventId,
    outcomes: event.outcomes,
    endDate: event.endDate,
    outcomePricesAtAdmission: event.outcomePricesAtAdmission,
    resolution: {
      resolutionStatus: "resolved",
      winningOutcomeId: resolution.winningOutcomeId,
      resolvedAt: isoAt(resolution.resolvedAtMs),
    },
  };
}

function scorerPredictionOf(
  row: Pick<
    ScoredPredictionRecord,
    "agentPredictionId" | "eventId" | "minerHotkey" | "minerUid" | "predictedAtMs"
  >,
  input: ScoredPredictionInput,
): ScorerPrediction {
  return {
    agentPredictionId: row.agentPredictionId,
    eventId: row.eventId,
    minerHotkey: row.minerHotkey,
    minerUid: row.minerUid,
    predictedAt: isoAt(row.predictedAtMs),
    ...input,
  };
}

function rowOf(
  scored: ScoredPrediction,
  counted: boolean,
  input: ScoredPredictionInput,
): ScoredPredictionRecord {
  const { prediction, result } = scored;
  return {
    agentPredictionId: prediction.agentPredictionId,
    eventId: prediction.eventId,
    minerHotkey: prediction.minerHotkey,
    minerUid: prediction.minerUid!,
    predictedAtMs: scored.predictedAtMs,
    resolvedAtMs: scored.resolvedAtMs!,
    counted,
    reasons: result.reasons,
    pWin: result.pWin,
    brier: result.brier,
    called: result.called,
    marketBrier: result.marketBrier,
    input,
  };
}

/**
 * Scores every stored prediction of a resolved event against `resolution`: the rows (each with
 * its counted flag: the latest of its (hotkey, uid)) and the event's record with its stats.
 */
export function scoreStoredEvent(
  event: EventRecord,
  predictions: readonly StoredPrediction[],
  options: { resolution: FinalResolution; scoredAtMs: number },
): { record: ScoredEventRecord; rows: ScoredPredictionRecord[] } {
  const record: ScoredEventRecord = {
    eventId: event.id,
    source: event.source,
    sourceMarketId: event.sourceMarketId,
    question: event.question,
    outcomes: event.outcomes.map(({ outcomeId, name }) => ({ outcomeId, name })),
    endDate: event.endDate,
    outcomePricesAtAdmission: event.outcomePricesAtAdmission,
    resolvedAtMs: options.resolution.resolvedAtMs,
    winningOutcomeId: options.resolution.winningOutcomeId,
    scoredAtMs: options.scoredAtMs,
    marketPWinAtAdmission: 0,
    stats: { scored: 0, valid: 0, meanBrier: null, calledRate: null, bestUid: null },
  };
  const scorerEvent = scorerEventOf(record, options.resolution);
  const inputs = new Map(predictions.map((p) => [p.agentPredictionId, scorerInputOf(p)]));
  const scored = predictions.map((p) =>
    scorePrediction(scorerPredictionOf(p, inputs.get(p.agentPredictionId)!), scorerEvent)
  );
  const counted = countedPredictions(scored);
  const countedIds = new Set(counted.map((row) => row.prediction.agentPredictionId));
  const result = scoreEvent(scorerEvent, counted);
  const rows = scored.map((row) => {
    const id = row.prediction.agentPredictionId;
    return rowOf(row, countedIds.has(id), inputs.get(id)!);
  }).sort((
    a,
    b,
  ) => (a.agentPredictionId < b.agentPredictionId ? -1 : a.agentPredictionId > b.agentPredictionId ? 1 : 0));
  return {
    record: { ...record, marketPWinAtAdmission: result.marketPWinAtAdmission, stats: result.stats },
    rows,
  };
}

/**
 * A registration's score-table row from its counted rows in the window (`events`: the scored
 * events they belong to), at `computedAtMs`.
 */
export function scoreTableRow(
  registration: { hotkey: string; uid: number; firstSeenAtMs: number },
  rows: readonly ScoredPredictionRecord[],
  options: { events: ReadonlyMap<string, ScoredEventRecord>; computedAtMs: number },
): ScoreTableRow {
  const scored = rows.map((row) => {
    const event = options.events.get(row.eventId);
    if (event === undefined) throw new Error(`Cannot score miner row: event ${row.eventId} is not scored`);
    return scorePrediction(scorerPredictionOf(row, row.input), scorerEventOf(event, event));
  });
  const { scoring, unroundedScore } = scoreMiner(scored, {
    computedAtMs: options.computedAtMs,
    firstSeenAtMs: registration.firstSeenAtMs,
  });
  return {
    hotkey: registration.hotkey,
    uid: registration.uid,
    firstSeenAtMs: registration.firstSeenAtMs,
    scoring,
    unroundedScore,
  };
}
