import { isDeepStrictEqual } from "node:util";
import { isoAt } from "../kernel/mod.ts";
import { hasPrices } from "./market_sanitize.ts";
import type { SourceMarket } from "./sources/market_source.ts";
import type { EventRecord, Resolution } from "../../storage/event_record.ts";
import { UNRESOLVED } from "../../storage/event_record.ts";

/** Which source markets become catalog events (configurable). */
export interface AdmissionRules {
  minLiquidityUsd: number;
  minVolumeUsd: number;
  /** `lastSeenAt` alone is rewritten at most this often, so unchanged passes write nothing. */
  lastSeenResolutionMs: number;
}

/** The service event id of a source market. */
export function eventIdFor(source: string, sourceMarketId: string): string {
  return `${source}-${sourceMarketId}`;
}

/** Why a new market is not admitted, or null when it is. */
export function admissionRefusal(market: SourceMarket, nowMs: number, rules: AdmissionRules): string | null {
  if (market.resolution.status !== "unresolved") return "already settled";
  if (Date.parse(market.endDate) <= nowMs) return "already ended";
  if (market.outcomes.length < 2) return "fewer than two outcomes";
  if (Object.keys(market.outcomePrices).length !== market.outcomes.length) return "no prices";
  if (!hasPrices(market.outcomePrices)) return "all prices are zero";
  if (market.liquidityUsd < rules.minLiquidityUsd) return "liquidity below minimum";
  if (market.volumeUsd < rules.minVolumeUsd) return "volume below minimum";
  return null;
}

/** A newly admitted event: admission values are recorded once, here. Text must be sanitized. */
export function admitMarket(market: SourceMarket, nowMs: number): EventRecord {
  const at = isoAt(nowMs);
  return {
    id: eventIdFor(market.source, market.sourceMarketId),
    source: market.source,
    sourceMarketId: market.sourceMarketId,
    question: market.question,
    description: market.description,
    outcomes: market.outcomes,
    endDate: market.endDate,
    startDate: market.startDate,
    tagsAtAdmission: market.tagIds,
    liquidityUsd: market.liquidityUsd,
    volumeUsd: market.volumeUsd,
    volumeRecentUsd: market.volume24hUsd,
    currentLiquidityUsd: market.liquidityUsd,
    currentVolumeUsd: market.volumeUsd,
    currentOutcomePrices: market.outcomePrices,
    admittedAt: at,
    lastSeenAt: at,
    resolution: resolutionOf(market, null),
    outcomePricesAtAdmission: market.outcomePrices,
  };
}

/**
 * The event after another sighting of its market, or null when nothing worth writing changed.
 * Admission values never change; a settled resolution is final.
 */
export function updateFromMarket(
  event: EventRecord,
  market: SourceMarket,
  nowMs: number,
  rules: AdmissionRules,
): EventRecord | null {
  const next: EventRecord = {
    ...event,
    question: market.question,
    description: market.description,
    endDate: market.endDate,
    startDate: market.startDate,
    volumeRecentUsd: market.volume24hUsd,
    currentLiquidityUsd: market.liquidityUsd,
    currentVolumeUsd: market.volumeUsd,
    currentOutcomePrices: hasPrices(market.outcomePrices) ? market.outcomePrices : event.currentOutcomePrices,
    resolution: resolutionOf(market, event),
  };
  // Deep equality that ignores key order: PostgreSQL JSONB does not keep it.
  const changed = !isDeepStrictEqual({ ...next, lastSeenAt: "" }, { ...event, lastSeenAt: "" });
  const heartbeatDue = nowMs - Date.parse(event.lastSeenAt) >= rules.lastSeenResolutionMs;
  if (!changed && !heartbeatDue) return null;
  return { ...next, lastSeenAt: isoAt(nowMs) };
}

/** A settlement as compared: its status and winner. */
export interface Settlement {
  status: Resolution["resolutionStatus"];
  winningOutcomeId: string | null;
}

/**
 * The source's settlement when it contradicts the event's settled one (another status or winner),
 * else null. The stored settlement is kept (it is final); the caller logs and counts this.
 */
export function contradictedSettlement(event: EventRecord, market: SourceMarket): Settlement | null {
  const kept = event.resolution;
  const reported = market.resolution;
  if (kept.resolutionStatus === "unresolved" || reported.status === "unresolved") return null;
  const reportedWinner = reported.status === "resolved" ? reported.winningOutcomeId : null;
  if (kept.resolutionStatus === reported.status && kept.winningOutcomeId === reportedWinner) return null;
  return { status: reported.status, winningOutcomeId: reportedWinner };
}

function resolutionOf(market: SourceMarket, event: EventRecord | null): Resolution {
  if (event && event.resolution.resolutionStatus !== "unresolved") return event.resolution;
  const { status, winningOutcomeId, resolvedAt, finalOutcomePrices } = market.resolution;
  if (status === "unresolved") {
    return { ...UNRESOLVED };
  }
  const winner = market.outcomes.find((outcome) => outcome.outcomeId === winningOutcomeId);
  return {
    resolvedAt,
    resolutionStatus: status,
    winningOutcomeId: status === "resolved" ? winningOutcomeId : null,
    winningOutcomeName: status === "resolved" ? winner?.name ?? null : null,
    finalOutcomePrices,
  };
}
