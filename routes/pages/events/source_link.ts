import type { EventRecord } from "../../../storage/event_record.ts";

/** Polymarket's public record of one market, by the market's id (Gamma API). */
const POLYMARKET_MARKET = "https://gamma-api.polymarket.com/markets/";

/**
 * Where an event's market is at its source, as far as the record allows: the event keeps the
 * market's id, not its slug (which names its page on polymarket.com), so a Polymarket market is
 * linked to its public record there, which holds the slug. Null for a source without one (the
 * offline sample markets, `snapshot`).
 */
export function sourceLink(event: EventRecord): { href: string; label: string } | null {
  if (event.source !== "polymarket" || !/^\d+$/.test(event.sourceMarketId)) return null;
  return {
    href: `${POLYMARKET_MARKET}${event.sourceMarketId}`,
    label: `Polymarket market ${event.sourceMarketId} (its public record)`,
  };
}
