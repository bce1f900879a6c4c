/**
 * The customer prediction of one event (docs/predictions.md, "GET /v1/predictions/{eventId}"): the event's
 * fields, its market prices and the consensus of the registered miners. Pure: the caller reads the inputs.
 */
import { isoAt } from "../kernel/mod.ts";
import { validityFactsOf } from "../scoring/mod.ts";
import type { EventRecord, Outcome, Resolution } from "../../storage/event_record.ts";
import type { PredictionDigest } from "../../storage/assignment_record.ts";
import type { LeaseUsage } from "../../storage/billing_store.ts";
import {
  type Consensus,
  type ConsensusForecast,
  type ConsensusMiner,
  type ConsensusMinerRow,
  scoreWeightedConsensus,
} from "./consensus.ts";

/**
 * A miner row as the customer routes show it: the consensus row without its prediction's id, with
 * the charged LLM calls of that prediction's lease and their cost (docs/predictions.md).
 */
export type CustomerMinerRow = Omit<ConsensusMinerRow, "agentPredictionId"> & {
  llmCalls: number;
  /** Micro-credits, a decimal string. */
  llmCostMicro: string;
};

export interface CustomerPrediction {
  eventId: string;
  question: string;
  outcomes: Outcome[];
  resolution: Resolution;
  /** The event's current prices and when the market source last showed them (`lastSeenAt`). */
  market: { outcomePrices: Record<string, number>; at: string };
  forecast: ConsensusForecast | null;
  miners: CustomerMinerRow[];
}

/** The current (hotkey, uid) registrations with their scores, and when the scores were computed. */
export interface ScoredMiners {
  miners: readonly ConsensusMiner[];
  /** The score table's computedAt (ISO 8601). */
  computedAt: string;
}

/** True once the event has settled (resolved or voided): miner rows then show their probabilities. */
export function isSettled(event: EventRecord): boolean {
  return event.resolution.resolutionStatus !== "unresolved";
}

/**
 * The consensus of `event` over `digests` (its stored predictions) and the scored miners. A
 * prediction's lateness is judged against the event as it is now (rule 7 of docs/scoring.md, as the scorer
 * judges it): one received after the source's resolution but before ingestion learned of it was
 * stored valid and must not carry post-resolution knowledge into the forecast; one stored invalid
 * only for being late counts once the event's end has moved past it.
 */
export function consensusOf(event: EventRecord, digests: readonly PredictionDigest[], scored: ScoredMiners) {
  const { deadlineMs } = validityFactsOf(event);
  return scoreWeightedConsensus({
    outcomeIds: event.outcomes.map((outcome) => outcome.outcomeId),
    predictions: digests.map((digest) => ({
      agentPredictionId: digest.agentPredictionId,
      minerHotkey: digest.minerHotkey,
      minerUid: digest.minerUid,
      predictedAt: isoAt(digest.predictedAtMs),
      outcomeProbabilities: digest.outcomeProbabilities,
      isValid: (digest.isValid || digest.lateOnly) && digest.predictedAtMs <= deadlineMs,
    })),
    miners: scored.miners,
  }, { showMinerProbabilities: isSettled(event), scoresComputedAt: scored.computedAt });
}

/** The ids of the predictions `consensus` shows in its miner rows (whose LLM usage its rendering needs). */
export function shownPredictionIds(consensus: readonly Consensus[]): string[] {
  return [...new Set(consensus.flatMap(({ miners }) => miners.map((row) => row.agentPredictionId)))];
}

/**
 * `event`'s customer prediction, in the shape of docs/predictions.md: its consensus (`consensusOf`),
 * each miner row with its lease's LLM usage from `usage` (none: 0).
 */
export function customerPrediction(
  event: EventRecord,
  consensus: Consensus,
  usage: ReadonlyMap<string, LeaseUsage>,
): CustomerPrediction {
  const { forecast } = consensus;
  const miners = consensus.miners.map(({ agentPredictionId, ...row }) => {
    const lease = usage.get(agentPredictionId);
    return { ...row, llmCalls: lease?.calls ?? 0, llmCostMicro: String(lease?.costMicro ?? 0n) };
  });
  return {
    eventId: event.id,
    question: event.question,
    outcomes: event.outcomes,
    resolution: event.resolution,
    market: { outcomePrices: event.currentOutcomePrices, at: event.lastSeenAt },
    forecast,
    miners,
  };
}
