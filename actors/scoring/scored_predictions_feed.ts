/**
 * The rows of `GET /v1/validators/scored-predictions` (docs/scoring.md, "The scored-predictions feed"): every
 * stored prediction of resolved, scored events in a rolling window, newest resolution first,
 * restricted to the currently registered (hotkey, uid) pairs, with the raw inputs a validator
 * needs to recompute the scores (`deno task score`).
 */
import { DAY_MS, isoAt } from "../kernel/mod.ts";
import type { MetagraphReader } from "./board_inputs.ts";
import type { AssignmentStore, ScoredCursor } from "../../storage/assignment_store.ts";
import type { StoredPrediction } from "../../storage/assignment_record.ts";
import type { BillingStore, LeaseUsage } from "../../storage/billing_store.ts";
import type { ScoredPredictionRecord, ScoreStore } from "../../storage/score_store.ts";
import { type TraceSummary, traceSummaryOf } from "./trace_summary.ts";

export interface ScoredPredictionRow {
  agentPredictionId: string;
  minerHotkey: string;
  minerUid: number;
  /** The service's event id. */
  marketId: string;
  sourceMarketId: string;
  predictedAt: string;
  /** The latest `predictedAt` of this (hotkey, uid) on this event: the row that counts. */
  minerLastPredictedAt: string;
  predictedOutcomeId: string;
  confidence: number | null;
  outcomeProbabilities: Record<string, number | null>;
  /** The prices of the event snapshot handed out with the lease (the scored market prices). */
  outcomePricesAtPrediction: Record<string, number>;
  resolvedOutcomeId: string | null;
  finalOutcomePrices: Record<string, number> | null;
  resolvedAt: string;
  /** The verdict at scoring (late predictions included). */
  predictionIsInvalid: boolean;
  predictionInvalidReason: string | null;
  predictionValidation: {
    isValid: boolean;
    reasons: string[];
    rawObserved: { prediction: string; confidence: string } | null;
  };
  scoredAt: string;
  resolutionStatus: string;
  /** The validator that held the lease and submitted. */
  validatorHotkey: string;
  /** The lease's charged LLM calls, from the service's usage records when read (late settles count). */
  llmCalls: number;
  /** Σ their costs, micro-credits as a decimal string. */
  llmCostMicro: string;
  traceSummary?: TraceSummary;
}

export interface ScoredPredictionsQuery {
  /** The window: events resolved in the last `days` days before `nowMs`. */
  days: number;
  limit: number;
  after?: ScoredCursor;
  /** One miner, under its current uid only. */
  minerHotkey?: string;
  includeTraceSummary: boolean;
  nowMs: number;
}

export interface ScoredPredictionsDeps {
  assignments: Pick<AssignmentStore, "listScored" | "getTrace">;
  scores: Pick<ScoreStore, "eventPredictions" | "getEvent">;
  /** The usage records: each row's LLM calls, one read per page. */
  billing: Pick<BillingStore, "leaseUsage">;
  /** This instance's metagraph view: the current registrations. */
  metagraph: Pick<MetagraphReader, "metagraph">;
}

/** The registrations the feed shows: every current (hotkey, uid), or the named miner's. */
function registrations(deps: ScoredPredictionsDeps, minerHotkey: string | undefined) {
  const neurons = deps.metagraph.metagraph?.neurons ?? [];
  const pairs = neurons.map(({ hotkey, uid }) => ({ hotkey, uid }));
  return minerHotkey === undefined ? pairs : pairs.filter((pair) => pair.hotkey === minerHotkey);
}

/** The scored rows of each event on the page, by event id. */
async function scoredRowsOf(deps: ScoredPredictionsDeps, predictions: readonly StoredPrediction[]) {
  const eventIds = [...new Set(predictions.map((p) => p.eventId))];
  const entries = await Promise.all(eventIds.map(async (eventId) => {
    const [event, rows] = await Promise.all([
      deps.scores.getEvent(eventId),
      deps.scores.eventPredictions(eventId),
    ]);
    return [eventId, { event, rows }] as const;
  }));
  return new Map(entries);
}

function lastPredictedAt(rows: readonly ScoredPredictionRecord[], p: StoredPrediction): number {
  let latest = p.predictedAtMs;
  for (const row of rows) {
    if (row.minerHotkey === p.minerHotkey && row.minerUid === p.minerUid) {
      latest = Math.max(latest, row.predictedAtMs);
    }
  }
  return latest;
}

function rowOf(
  p: StoredPrediction,
  scored: { event: { sourceMarketId: string } | null; rows: ScoredPredictionRecord[] } | undefined,
  usage: LeaseUsage | undefined,
): ScoredPredictionRow {
  const { scoredAtMs, resolvedAtMs, resolution } = p.scored!;
  const record = scored?.rows.find((row) => row.agentPredictionId === p.agentPredictionId);
  const reasons = record?.reasons ?? p.validation.reasons;
  return {
    agentPredictionId: p.agentPredictionId,
    minerHotkey: p.minerHotkey,
    minerUid: p.minerUid,
    marketId: p.eventId,
    sourceMarketId: scored?.event?.sourceMarketId ?? "",
    predictedAt: isoAt(p.predictedAtMs),
    minerLastPredictedAt: isoAt(lastPredictedAt(scored?.rows ?? [], p)),
    predictedOutcomeId: p.reported.predictedOutcomeId,
    confidence: p.reported.confidence,
    outcomeProbabilities: p.reported.outcomeProbabilities,
    outcomePricesAtPrediction: p.outcomePricesAtPrediction,
    resolvedOutcomeId: resolution.resolvedOutcomeId,
    finalOutcomePrices: resolution.finalOutcomePrices,
    resolvedAt: isoAt(resolvedAtMs),
    predictionIsInvalid: reasons.length > 0,
    predictionInvalidReason: reasons[0] ?? null,
    predictionValidation: { isValid: reasons.length === 0, reasons, rawObserved: p.validation.rawObserved },
    scoredAt: isoAt(scoredAtMs),
    resolutionStatus: resolution.resolutionStatus,
    validatorHotkey: p.validatorHotkey,
    llmCalls: usage?.calls ?? 0,
    llmCostMicro: String(usage?.costMicro ?? 0n),
  };
}

/**
 * One page of the feed. Empty while the metagraph has never synced, and for a `minerHotkey` that
 * is not registered now. Rows of a deregistered hotkey, of a uid now held by another hotkey, or of
 * a hotkey's earlier uid are left out.
 */
export async function scoredPredictionsPage(
  deps: ScoredPredictionsDeps,
  query: ScoredPredictionsQuery,
): Promise<{ items: ScoredPredictionRow[]; next: ScoredCursor | null }> {
  const miners = registrations(deps, query.minerHotkey);
  if (miners.length === 0) return { items: [], next: null };
  const found = await deps.assignments.listScored({
    resolvedSinceMs: query.nowMs - query.days * DAY_MS,
    limit: query.limit + 1,
    miners,
    ...(query.after ? { after: query.after } : {}),
  });
  const page = found.slice(0, query.limit);
  const [scored, usage] = await Promise.all([
    scoredRowsOf(deps, page),
    deps.billing.leaseUsage(page.map((p) => p.agentPredictionId)),
  ]);
  const items = await Promise.all(page.map(async (p) => {
    const row = rowOf(p, scored.get(p.eventId), usage.get(p.agentPredictionId));
    if (!query.includeTraceSummary) return row;
    return { ...row, traceSummary: traceSummaryOf(await deps.assignments.getTrace(p.agentPredictionId)) };
  }));
  const last = page.at(-1);
  const more = found.length > query.limit && last !== undefined;
  return {
    items,
    next: more
      ? { resolvedAtMs: last.scored!.resolvedAtMs, agentPredictionId: last.agentPredictionId }
      : null,
  };
}
