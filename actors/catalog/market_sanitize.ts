import type { SourceMarket } from "./sources/market_source.ts";

/**
 * Bounds on what one event may hold. They keep every stored event well under Deno KV's 64 KiB
 * value limit (even with 4-byte characters) and out of PostgreSQL JSONB's refusals.
 */
export const MARKET_LIMITS = {
  questionChars: 500,
  descriptionChars: 6_000,
  outcomeNameChars: 100,
  outcomes: 32,
  tags: 64,
} as const;

// Control characters other than tab, line feed and carriage return (JSONB refuses NUL).
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/** `text` without control characters or lone surrogates, cut to `maxChars` code points. */
export function cleanText(text: string, maxChars: number): string {
  const clean = text.replace(CONTROL, "").toWellFormed();
  if (clean.length <= maxChars) return clean;
  return Array.from(clean).slice(0, maxChars).join("");
}

/** The market with its text made storable, or a reason it cannot be stored at all. */
export function sanitizeMarket(market: SourceMarket): SourceMarket | string {
  if (market.outcomes.length > MARKET_LIMITS.outcomes) return "too many outcomes";
  return {
    ...market,
    question: cleanText(market.question, MARKET_LIMITS.questionChars),
    description: cleanText(market.description, MARKET_LIMITS.descriptionChars),
    outcomes: market.outcomes.map((outcome) => ({
      outcomeId: outcome.outcomeId,
      name: cleanText(outcome.name, MARKET_LIMITS.outcomeNameChars),
    })),
    tagIds: market.tagIds.slice(0, MARKET_LIMITS.tags),
  };
}

/** True when the source quoted real prices: some, and not all zero (all-zero is "no quote"). */
export function hasPrices(prices: Record<string, number>): boolean {
  return Object.values(prices).some((price) => price > 0);
}
