import type { Outcome, ResolutionStatus } from "../../../storage/event_record.ts";

/** A market as a source reports it, already decoded into plain values. */
export interface SourceMarket {
  source: string;
  sourceMarketId: string;
  question: string;
  description: string;
  outcomes: Outcome[];
  /** outcomeId -> price in 0..1; empty when the source gave none. */
  outcomePrices: Record<string, number>;
  startDate: string;
  endDate: string;
  tagIds: number[];
  liquidityUsd: number;
  volumeUsd: number;
  volume24hUsd: number;
  /** The source's own settlement, decided by the adapter (never "resolved" while disputed). */
  resolution: SourceResolution;
}

export interface SourceResolution {
  status: ResolutionStatus;
  winningOutcomeId: string | null;
  resolvedAt: string | null;
  finalOutcomePrices: Record<string, number> | null;
}

/** A market a source served that could not be decoded: skipped, and logged by the ingestion. */
export interface MalformedMarket {
  /** The market's id as served, when it has one. */
  sourceMarketId: string | null;
  /** Why it cannot be decoded, naming the field: `2 outcomePrices for 3 outcomes`. */
  reason: string;
}

/** One page of a source's markets. */
export interface MarketPage {
  markets: SourceMarket[];
  /** Markets on the page that could not be decoded (skipped, never fatal). */
  malformed: MalformedMarket[];
  /** Pass back to get the next page; null after the last page. */
  nextCursor: string | null;
}

/** Port for an external market source (Polymarket Gamma, or a JSON snapshot file). */
export interface MarketSource {
  readonly name: string;
  /** Fetches one page; throws `MarketSourceError` when the source cannot be reached. */
  fetchPage(cursor: string | null, signal?: AbortSignal): Promise<MarketPage>;
}

/** The source could not be read (network, repeated 429/5xx, unparseable page). */
export class MarketSourceError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "MarketSourceError";
  }
}
