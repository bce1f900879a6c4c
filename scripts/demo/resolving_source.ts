/**
 * The demo's market source: the shipped sample snapshot, with the markets the demo resolved
 * reported as settled. A resolution is what an edited copy of the snapshot would say once
 * Polymarket settled the market (docs/events.md, "Resolving a sample market"): the winner's price
 * at 1, the others at 0, and the close time as `resolvedAt`. The next ingestion pass stores it.
 */
import { isoAt } from "../../actors/kernel/mod.ts";
import type { MarketPage, MarketSource, SourceMarket } from "../../actors/catalog/mod.ts";

/** A market the demo resolved: who won, and when. */
export interface DemoResolution {
  winningOutcomeId: string;
  resolvedAtMs: number;
}

export class ResolvingMarketSource implements MarketSource {
  readonly #inner: MarketSource;
  /** sourceMarketId → its resolution. */
  readonly #resolved = new Map<string, DemoResolution>();

  constructor(inner: MarketSource) {
    this.#inner = inner;
  }

  get name(): string {
    return this.#inner.name;
  }

  /** Reports market `sourceMarketId` as resolved from the next page read on. */
  resolve(sourceMarketId: string, resolution: DemoResolution): void {
    this.#resolved.set(sourceMarketId, resolution);
  }

  async fetchPage(cursor: string | null, signal?: AbortSignal): Promise<MarketPage> {
    const page = await this.#inner.fetchPage(cursor, signal);
    return { ...page, markets: page.markets.map((market) => this.#settled(market)) };
  }

  #settled(market: SourceMarket): SourceMarket {
    const resolution = this.#resolved.get(market.sourceMarketId);
    if (resolution === undefined) return market;
    const finalPrices = Object.fromEntries(
      market.outcomes.map(({ outcomeId }) => [outcomeId, outcomeId === resolution.winningOutcomeId ? 1 : 0]),
    );
    return {
      ...market,
      outcomePrices: finalPrices,
      resolution: {
        status: "resolved",
        winningOutcomeId: resolution.winningOutcomeId,
        resolvedAt: isoAt(resolution.resolvedAtMs),
        finalOutcomePrices: finalPrices,
      },
    };
  }
}
