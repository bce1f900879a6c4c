/**
 * The settlement rule of a Gamma market (docs/events.md, "Where events come from"): whether its
 * close, UMA status and prices make it resolved, voided or still unresolved.
 */
import type { Outcome } from "../../../storage/event_record.ts";
import type { SourceResolution } from "./market_source.ts";

/** outcomeId -> price, in outcome order (prices beyond the outcomes are left out). */
export function priceMap(outcomes: readonly Outcome[], prices: readonly number[]): Record<string, number> {
  const map: Record<string, number> = {};
  prices.forEach((price, index) => {
    const outcome = outcomes[index];
    if (outcome !== undefined) map[outcome.outcomeId] = price;
  });
  return map;
}

/** What the resolution rule looks at. */
export interface GammaSettlementInput {
  closed: boolean;
  umaResolutionStatus: string | null;
  /** When trading closed (`closedTime`, else `umaEndDate`, else `endDate`), ISO 8601. */
  closedAt: string;
  outcomes: readonly Outcome[];
  /** One price per outcome, or none. */
  prices: readonly number[];
}

function unresolved(): SourceResolution {
  return { status: "unresolved", winningOutcomeId: null, resolvedAt: null, finalOutcomePrices: null };
}

const PRICE_EPSILON = 1e-9;

/**
 * The settlement rule. A market is settled only when it is `closed` AND its current
 * `umaResolutionStatus` is `"resolved"` — so a proposed, challenged or disputed market always stays
 * `unresolved`, whatever its prices say. A settled market is then:
 * - `resolved` when its prices are a settlement vector (one outcome at 1, every other at 0): that
 *   outcome wins, `resolvedAt` is the close time, `finalOutcomePrices` are the prices;
 * - `voided` when every outcome settled at the same price 1/n (the 50/50 settlement of a binary
 *   market): no winner, `resolvedAt` and `finalOutcomePrices` as above;
 * - otherwise (all zeros, no prices, anything else) still `unresolved`: not a result.
 */
export function decideGammaResolution(input: GammaSettlementInput): SourceResolution {
  const { outcomes, prices } = input;
  const status = input.umaResolutionStatus?.trim().toLowerCase();
  if (!input.closed || status !== "resolved" || prices.length !== outcomes.length) return unresolved();
  const finalOutcomePrices = priceMap(outcomes, prices);
  const settled = { resolvedAt: input.closedAt, finalOutcomePrices };
  const winner = winningIndex(prices);
  if (winner !== null) {
    return { status: "resolved", winningOutcomeId: outcomes[winner]?.outcomeId ?? null, ...settled };
  }
  const even = 1 / prices.length;
  if (prices.every((price) => Math.abs(price - even) < PRICE_EPSILON)) {
    return { status: "voided", winningOutcomeId: null, ...settled };
  }
  return unresolved();
}

/** Index of the one price at 1 when every other price is 0; otherwise null. */
function winningIndex(prices: readonly number[]): number | null {
  const ones = prices.flatMap((price, index) => (Math.abs(price - 1) < PRICE_EPSILON ? [index] : []));
  const zeros = prices.filter((price) => Math.abs(price) < PRICE_EPSILON).length;
  return ones.length === 1 && zeros === prices.length - 1 ? ones[0] ?? null : null;
}
