/**
 * Decodes Polymarket Gamma market objects (as served by `GET /markets/keyset`, and as stored in a
 * snapshot file) into `SourceMarket`s. One decoder for both adapters.
 *
 * Gamma wire format, as the decoder reads it:
 * - `id` is a numeric string; `question` and `description` are text.
 * - `outcomes`, `outcomePrices` and `clobTokenIds` are JSON-encoded strings (`"[\"Yes\", \"No\"]"`);
 *   an already-decoded array is accepted too. Prices are decimal strings (`"0.615"`) or numbers.
 * - `liquidityNum`/`volumeNum`/`volume24hr` are numbers, `liquidity`/`volume` decimal strings; the
 *   numeric field wins when both are present, a missing amount counts as 0.
 * - `tags` (present with `include_tag=true`) are objects whose `id` is a numeric string.
 * - Timestamps come as `2026-11-20T12:00:00Z`, `2025-06-09T08:01:34.856648Z` or, for `closedTime`,
 *   `2026-08-18 16:57:10+00`; all become ISO 8601 UTC with milliseconds and `Z`.
 *
 * A market that cannot be decoded (no id or question, undecodable JSON strings, outcome/price/token
 * counts that disagree, prices outside 0..1, missing or unparseable dates) yields `null`: the
 * adapters skip it and count it as malformed.
 */
import { z } from "zod";
import { isoAt } from "../../kernel/mod.ts";
import type { Outcome } from "../../../storage/event_record.ts";
import type { SourceMarket, SourceResolution } from "./market_source.ts";

/** `SourceMarket.source` of every Polymarket market. */
export const POLYMARKET_SOURCE = "polymarket";

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Milliseconds since the epoch of a Gamma timestamp (no zone means UTC), or null when it is not one. */
export function parseGammaTimestamp(text: string): number | null {
  const match = TIMESTAMP.exec(text.trim());
  if (match === null) return null;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((part) =>
    Number(part ?? 0)
  );
  const millis = Number((match[7] ?? "").padEnd(3, "0").slice(0, 3));
  if (hour > 23 || minute > 59 || second > 59) return null;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(local);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return null;
  }
  return local - zoneOffsetMinutes(match[8] ?? "Z") * 60_000;
}

function zoneOffsetMinutes(zone: string): number {
  if (zone.toUpperCase() === "Z") return 0;
  const digits = zone.slice(1).replace(":", "");
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0");
  return zone.startsWith("-") ? -minutes : minutes;
}

/** Gamma's own field names; only the shape is checked here, conversions follow in plain code. */
const rawMarketSchema = z.object({
  id: z.union([z.string(), z.number().int().nonnegative()]),
  question: z.string(),
  description: z.string().nullish(),
  outcomes: z.union([z.string(), z.array(z.unknown())]),
  outcomePrices: z.union([z.string(), z.array(z.unknown())]).nullish(),
  clobTokenIds: z.union([z.string(), z.array(z.unknown())]).nullish(),
  startDate: z.string().nullish(),
  createdAt: z.string().nullish(),
  endDate: z.string(),
  closed: z.boolean().nullish(),
  closedTime: z.string().nullish(),
  umaEndDate: z.string().nullish(),
  umaResolutionStatus: z.string().nullish(),
  liquidityNum: z.union([z.number(), z.string()]).nullish(),
  liquidity: z.union([z.number(), z.string()]).nullish(),
  volumeNum: z.union([z.number(), z.string()]).nullish(),
  volume: z.union([z.number(), z.string()]).nullish(),
  volume24hr: z.union([z.number(), z.string()]).nullish(),
  volume24hrClob: z.union([z.number(), z.string()]).nullish(),
  tags: z.array(z.unknown()).nullish(),
});

type RawGammaMarket = z.infer<typeof rawMarketSchema>;

/** Decodes one raw Gamma market; null when it is malformed. */
export function decodeGammaMarket(raw: unknown): SourceMarket | null {
  const parsed = rawMarketSchema.safeParse(raw);
  if (!parsed.success) return null;
  const market = parsed.data;
  const id = String(market.id).trim();
  const question = market.question.trim();
  const outcomes = decodeOutcomes(market);
  const prices = decodeList(market.outcomePrices, toPrice);
  const dates = decodeDates(market);
  const amounts = decodeAmounts(market);
  if (id === "" || question === "" || outcomes === null || prices === null) return null;
  if (dates === null || amounts === null) return null;
  if (prices.length !== 0 && prices.length !== outcomes.length) return null;
  return {
    source: POLYMARKET_SOURCE,
    sourceMarketId: id,
    question,
    description: market.description ?? "",
    outcomes,
    outcomePrices: priceMap(outcomes, prices),
    startDate: dates.startDate,
    endDate: dates.endDate,
    tagIds: decodeTagIds(market.tags ?? []),
    ...amounts,
    resolution: decideGammaResolution({
      closed: market.closed === true,
      umaResolutionStatus: market.umaResolutionStatus ?? null,
      closedAt: dates.closedAt,
      outcomes,
      prices,
    }),
  };
}

/** Decodes a page of raw markets, counting (and skipping) the malformed ones. */
export function decodeGammaMarkets(raws: readonly unknown[]): { markets: SourceMarket[]; malformed: number } {
  const markets: SourceMarket[] = [];
  for (const raw of raws) {
    const market = decodeGammaMarket(raw);
    if (market !== null) markets.push(market);
  }
  return { markets, malformed: raws.length - markets.length };
}

/**
 * A list Gamma sends JSON-encoded in a string (or, tolerated, as an array); null/"" is an empty
 * list. Null when the text is not a JSON array or an item does not convert.
 */
function decodeList<T>(
  value: string | unknown[] | null | undefined,
  convert: (item: unknown) => T | null,
): T[] | null {
  let items: unknown = value ?? [];
  if (typeof items === "string") {
    if (items.trim() === "") return [];
    try {
      items = JSON.parse(items);
    } catch {
      return null;
    }
  }
  if (!Array.isArray(items)) return null;
  const converted: T[] = [];
  for (const item of items) {
    const result = convert(item);
    if (result === null) return null;
    converted.push(result);
  }
  return converted;
}

function toText(item: unknown): string | null {
  return typeof item === "string" && item.trim() !== "" ? item.trim() : null;
}

/** A finite number from a JSON number or a decimal string. */
function toDecimal(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string" || !DECIMAL.test(value.trim())) return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

function toPrice(item: unknown): number | null {
  const price = toDecimal(item);
  return price !== null && price >= 0 && price <= 1 ? price : null;
}

/** Outcome ids are the CLOB token ids when Gamma gives them, else the outcome's index. */
function decodeOutcomes(market: RawGammaMarket): Outcome[] | null {
  const names = decodeList(market.outcomes, toText);
  const tokens = decodeList(market.clobTokenIds, toText);
  if (names === null || tokens === null || names.length < 2) return null;
  if (tokens.length !== 0 && tokens.length !== names.length) return null;
  const outcomes = names.map((name, index) => ({ outcomeId: tokens[index] ?? String(index), name }));
  const distinct = new Set(outcomes.map((outcome) => outcome.outcomeId));
  return distinct.size === outcomes.length ? outcomes : null;
}

/** ISO 8601 of an optional Gamma timestamp: undefined when absent, null when unparseable. */
function optionalIso(text: string | null | undefined): string | null | undefined {
  if (text === null || text === undefined || text.trim() === "") return undefined;
  const ms = parseGammaTimestamp(text);
  return ms === null ? null : isoAt(ms);
}

/** Start (else creation) and end are required; close time falls back to the UMA deadline, then the end. */
function decodeDates(
  market: RawGammaMarket,
): { startDate: string; endDate: string; closedAt: string } | null {
  const endDate = optionalIso(market.endDate);
  const startDate = optionalIso(market.startDate) ?? optionalIso(market.createdAt);
  const closedTime = optionalIso(market.closedTime);
  const umaEndDate = optionalIso(market.umaEndDate);
  if (!endDate || !startDate || closedTime === null || umaEndDate === null) return null;
  return { startDate, endDate, closedAt: closedTime ?? umaEndDate ?? endDate };
}

type Amounts = Pick<SourceMarket, "liquidityUsd" | "volumeUsd" | "volume24hUsd">;

/** The numeric field wins over its decimal-string twin; absent counts as 0; garbage is malformed. */
function decodeAmounts(market: RawGammaMarket): Amounts | null {
  const liquidityUsd = usd(market.liquidityNum ?? market.liquidity);
  const volumeUsd = usd(market.volumeNum ?? market.volume);
  const volume24hUsd = usd(market.volume24hr ?? market.volume24hrClob);
  if (liquidityUsd === null || volumeUsd === null || volume24hUsd === null) return null;
  return { liquidityUsd, volumeUsd, volume24hUsd };
}

/** Dollar amounts are never negative (a rounding dust below zero reads as 0). */
function usd(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === "") return 0;
  const amount = toDecimal(value);
  return amount === null ? null : Math.max(0, amount);
}

function priceMap(outcomes: readonly Outcome[], prices: readonly number[]): Record<string, number> {
  const map: Record<string, number> = {};
  prices.forEach((price, index) => {
    const outcome = outcomes[index];
    if (outcome !== undefined) map[outcome.outcomeId] = price;
  });
  return map;
}

/** Integer tag ids; tags without a numeric id are left out, duplicates kept once. */
function decodeTagIds(tags: readonly unknown[]): number[] {
  const ids = new Set<number>();
  for (const tag of tags) {
    if (typeof tag !== "object" || tag === null || !("id" in tag)) continue;
    const id = Number(tag.id);
    if ((typeof tag.id === "string" || typeof tag.id === "number") && Number.isSafeInteger(id) && id >= 0) {
      ids.add(id);
    }
  }
  return [...ids];
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
 * The settlement rule (docs/events.md, "Where events come from"). A market is settled only when it is
 * `closed` AND its current `umaResolutionStatus` is `"resolved"` — so a proposed, challenged or disputed
 * market always stays `unresolved`, whatever its prices say. A settled market is then:
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
