/**
 * Scorer v1 over stored rows: a resolved event's stored predictions become its scored-event
 * record and scored prediction rows (what the scoring job stores), each row with the values the
 * per-miner formulas read (the score table folds them, `ScoreTableFold`). Pure: the streaming
 * scorer's event step (`scoreEventPredictions`), as `deno task score` runs it, fed with the same
 * inputs (the input fields of docs/scoring.md, "`deno task score`"), so the feed plus the CLI reproduce what
 * is stored.
 */
import { isoAt } from "../kernel/mod.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { ScoringPrediction } from "../../storage/assignment_record.ts";
import type { ScoredEventRecord, ScoredPredictionRecord, WindowRow } from "../../storage/score_store.ts";
import type { ScorerEvent, ScorerPrediction } from "./scorer_input.ts";
import type { ScoredPrediction } from "./prediction_score.ts";
import { scoreEventPredictions, type TableRowInput } from "./score_stream.ts";
import { minerRowValuesOf } from "./miner_fold.ts";
import { compareCodePoints } from "./scoring_math.ts";

/** The resolution an event is scored against: once scored, it is final. */
export interface FinalResolution {
  winningOutcomeId: string;
  resolvedAtMs: number;
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

/** The scorer's prediction (docs/scoring.md, "`deno task score`") of a stored one. */
export function scorerPredictionOf(prediction: ScoringPrediction): ScorerPrediction {
  return {
    agentPredictionId: prediction.agentPredictionId,
    eventId: prediction.eventId,
    minerHotkey: prediction.minerHotkey,
    minerUid: prediction.minerUid,
    predictedAt: isoAt(prediction.predictedAtMs),
    predictedOutcomeId: prediction.predictedOutcomeId,
    confidence: prediction.confidence,
    outcomeProbabilities: prediction.outcomeProbabilities,
    outcomePricesAtPrediction: prediction.outcomePricesAtPrediction,
    predictionIsInvalid: prediction.predictionIsInvalid,
  };
}

function rowOf(scored: ScoredPrediction, counted: boolean): ScoredPredictionRecord {
  const { prediction, result } = scored;
  const values = minerRowValuesOf(scored).valid;
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
    pPredicted: values?.pPredicted ?? null,
    stakeReturn: values?.stakeReturn ?? null,
  };
}

/**
 * Scores every stored prediction of a resolved event against `resolution`: the rows (each with
 * its counted flag: the latest of its (hotkey, uid)) and the event's record with its stats.
 */
export function scoreStoredEvent(
  event: EventRecord,
  predictions: readonly ScoringPrediction[],
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
  const { scored, counted, result } = scoreEventPredictions(scorerEvent, predictions.map(scorerPredictionOf));
  const countedIds = new Set(counted.map((row) => row.prediction.agentPredictionId));
  const rows = scored.map((row) => rowOf(row, countedIds.has(row.prediction.agentPredictionId)))
    .sort((a, b) => compareCodePoints(a.agentPredictionId, b.agentPredictionId));
  return {
    record: { ...record, marketPWinAtAdmission: result!.marketPWinAtAdmission, stats: result!.stats },
    rows,
  };
}

/** A stored counted row as the score table folds it. */
export function tableRowInputOf(row: WindowRow): TableRowInput {
  const { eventId, resolvedAtMs, minerHotkey, minerUid, brier, marketBrier, called, pPredicted } = row;
  const valid = brier === null ? null : {
    brier,
    marketBrier: marketBrier!,
    called: called!,
    pPredicted: pPredicted!,
    stakeReturn: row.stakeReturn,
  };
  return { eventId, resolvedAtMs, minerHotkey, minerUid, valid };
}
