/**
 * Hand-built `SourceMarket` fixtures: decoded markets as a market source hands them to the
 * catalog, without going through a source adapter.
 */
import type { SourceMarket, SourceResolution } from "../../actors/catalog/mod.ts";

/** The instant the fixtures are built around: 2026-11-20T12:00:00Z. */
export const MARKET_NOW_MS = Date.UTC(2026, 10, 20, 12);

/** Outcome ids of `sourceMarket()`. */
export const YES = "yes-token";
export const NO = "no-token";

/** A live binary market (ends 2026-12-31) that passes default admission rules; override any field. */
export function sourceMarket(overrides: Partial<SourceMarket> = {}): SourceMarket {
  return {
    source: "polymarket",
    sourceMarketId: "612345",
    question: "Will the Fed cut rates at the December 2026 meeting?",
    description: 'Resolves "Yes" if the FOMC lowers the target range at its December meeting.',
    outcomes: [{ outcomeId: YES, name: "Yes" }, { outcomeId: NO, name: "No" }],
    outcomePrices: { [YES]: 0.615, [NO]: 0.385 },
    startDate: "2026-10-01T08:00:00.000Z",
    endDate: "2026-12-31T00:00:00.000Z",
    tagIds: [2, 100328],
    liquidityUsd: 48_211.05,
    volumeUsd: 1_250_000.75,
    volume24hUsd: 38_210.5,
    resolution: { status: "unresolved", winningOutcomeId: null, resolvedAt: null, finalOutcomePrices: null },
    ...overrides,
  };
}

/** The settlement of a market whose `winner` outcome won at `resolvedAt`. */
export function resolvedTo(winner: string, resolvedAt: string): SourceResolution {
  return {
    status: "resolved",
    winningOutcomeId: winner,
    resolvedAt,
    finalOutcomePrices: { [YES]: winner === YES ? 1 : 0, [NO]: winner === NO ? 1 : 0 },
  };
}

/** The settlement of a market voided (settled 50/50) at `resolvedAt`. */
export function voidedAt(resolvedAt: string): SourceResolution {
  return {
    status: "voided",
    winningOutcomeId: null,
    resolvedAt,
    finalOutcomePrices: { [YES]: 0.5, [NO]: 0.5 },
  };
}
