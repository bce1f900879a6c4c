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
 * counts that disagree, prices outside 0..1, missing or unparseable dates) is malformed: the
 * adapters skip it and report it with the reason (`MalformedMarket`), which the ingestion logs.
 */
import { z } from "zod";
import { isoAt } from "../../kernel/mod.ts";
import type { Outcome } from "../../../storage/event_record.ts";
import type { MalformedMarket, SourceMarket } from "./market_source.ts";
import { parseGammaTimestamp } from "./gamma_timestamp.ts";
import { decideGammaResolution, priceMap } from "./gamma_settlement.ts";

/** `SourceMarket.source` of every Polymarket market. */
export const POLYMARKET_SOURCE = "polymarket";

const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

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

/** Why a raw market is malformed, in words naming the field. */
type Problem = string;

/** The decoded fields of a raw market that is not malformed. */
interface Parts {
  id: string;
  question: string;
  outcomes: Outcome[];
  prices: number[];
  dates: { startDate: string; endDate: string; closedAt: string };
  amounts: Amounts;
}

/** One raw Gamma market decoded, or why it is malformed. */
export type GammaReading = { market: SourceMarket } | { malformed: MalformedMarket };

/** Decodes one raw Gamma market, or names why it is malformed. */
export function readGammaMarket(raw: unknown): GammaReading {
  const parsed = rawMarketSchema.safeParse(raw);
  if (!parsed.success) return malformedAs(raw, schemaProblem(parsed.error));
  const parts = decodeParts(parsed.data);
  if (typeof parts === "string") return malformedAs(raw, parts);
  return { market: marketOf(parsed.data, parts) };
}

function malformedAs(raw: unknown, reason: Problem): GammaReading {
  return { malformed: { sourceMarketId: rawIdOf(raw), reason } };
}

function marketOf(market: RawGammaMarket, parts: Parts): SourceMarket {
  const { outcomes, prices, dates } = parts;
  return {
    source: POLYMARKET_SOURCE,
    sourceMarketId: parts.id,
    question: parts.question,
    description: market.description ?? "",
    outcomes,
    outcomePrices: priceMap(outcomes, prices),
    startDate: dates.startDate,
    endDate: dates.endDate,
    tagIds: decodeTagIds(market.tags ?? []),
    ...parts.amounts,
    resolution: decideGammaResolution({
      closed: market.closed === true,
      umaResolutionStatus: market.umaResolutionStatus ?? null,
      closedAt: dates.closedAt,
      outcomes,
      prices,
    }),
  };
}

/** Decodes one raw Gamma market; null when it is malformed. */
export function decodeGammaMarket(raw: unknown): SourceMarket | null {
  const reading = readGammaMarket(raw);
  return "market" in reading ? reading.market : null;
}

/** Decodes a page of raw markets, skipping the malformed ones and saying why each is. */
export function decodeGammaMarkets(
  raws: readonly unknown[],
): { markets: SourceMarket[]; malformed: MalformedMarket[] } {
  const markets: SourceMarket[] = [];
  const malformed: MalformedMarket[] = [];
  for (const raw of raws) {
    const reading = readGammaMarket(raw);
    if ("market" in reading) markets.push(reading.market);
    else malformed.push(reading.malformed);
  }
  return { markets, malformed };
}

function decodeParts(market: RawGammaMarket): Parts | Problem {
  const id = String(market.id).trim();
  if (id === "") return "id is empty";
  const question = market.question.trim();
  if (question === "") return "question is empty";
  const outcomes = decodeOutcomes(market);
  if (typeof outcomes === "string") return outcomes;
  const prices = decodeList(market.outcomePrices, toPrice);
  if (prices === null) return "outcomePrices is not a JSON list of prices in 0..1";
  if (prices.length !== 0 && prices.length !== outcomes.length) {
    return `${prices.length} outcomePrices for ${outcomes.length} outcomes`;
  }
  const dates = decodeDates(market);
  if (typeof dates === "string") return dates;
  const amounts = decodeAmounts(market);
  if (typeof amounts === "string") return amounts;
  return { id, question, outcomes, prices, dates, amounts };
}

/** The first field the raw shape gets wrong, e.g. `endDate: Invalid input: expected string, received undefined`. */
function schemaProblem(error: z.ZodError): Problem {
  const issue = error.issues[0];
  if (issue === undefined) return "not a Gamma market";
  return issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`;
}

/** The market's `id` as the raw object gives it, if it gives one. */
function rawIdOf(raw: unknown): string | null {
  if (typeof raw !== "object" || raw === null || !("id" in raw)) return null;
  const { id } = raw;
  return (typeof id === "string" || typeof id === "number") && String(id).trim() !== ""
    ? String(id).trim()
    : null;
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
function decodeOutcomes(market: RawGammaMarket): Outcome[] | Problem {
  const names = decodeList(market.outcomes, toText);
  if (names === null) return "outcomes is not a JSON list of names";
  if (names.length < 2) return `${names.length} outcomes (at least two are needed)`;
  const tokens = decodeList(market.clobTokenIds, toText);
  if (tokens === null) return "clobTokenIds is not a JSON list of ids";
  if (tokens.length !== 0 && tokens.length !== names.length) {
    return `${tokens.length} clobTokenIds for ${names.length} outcomes`;
  }
  const outcomes = names.map((name, index) => ({ outcomeId: tokens[index] ?? String(index), name }));
  const distinct = new Set(outcomes.map((outcome) => outcome.outcomeId));
  return distinct.size === outcomes.length ? outcomes : "two outcomes have the same id";
}

/** ISO 8601 of an optional Gamma timestamp: undefined when absent, null when unparseable. */
function optionalIso(text: string | null | undefined): string | null | undefined {
  if (text === null || text === undefined || text.trim() === "") return undefined;
  const ms = parseGammaTimestamp(text);
  return ms === null ? null : isoAt(ms);
}

/** Start (else creation) and end are required; close time falls back to the UMA deadline, then the end. */
function decodeDates(market: RawGammaMarket): Parts["dates"] | Problem {
  const endDate = optionalIso(market.endDate);
  if (!endDate) return "endDate is missing or not a timestamp";
  const startDate = optionalIso(market.startDate) ?? optionalIso(market.createdAt);
  if (!startDate) return "startDate (else createdAt) is missing or not a timestamp";
  const closedTime = optionalIso(market.closedTime);
  if (closedTime === null) return "closedTime is not a timestamp";
  const umaEndDate = optionalIso(market.umaEndDate);
  if (umaEndDate === null) return "umaEndDate is not a timestamp";
  return { startDate, endDate, closedAt: closedTime ?? umaEndDate ?? endDate };
}

type Amounts = Pick<SourceMarket, "liquidityUsd" | "volumeUsd" | "volume24hUsd">;

/** The numeric field wins over its decimal-string twin; absent counts as 0; garbage is malformed. */
function decodeAmounts(market: RawGammaMarket): Amounts | Problem {
  const liquidityUsd = usd(market.liquidityNum ?? market.liquidity);
  if (liquidityUsd === null) return "liquidity is not a number";
  const volumeUsd = usd(market.volumeNum ?? market.volume);
  if (volumeUsd === null) return "volume is not a number";
  const volume24hUsd = usd(market.volume24hr ?? market.volume24hrClob);
  if (volume24hUsd === null) return "volume24hr is not a number";
  return { liquidityUsd, volumeUsd, volume24hUsd };
}

/** Dollar amounts are never negative (a rounding dust below zero reads as 0). */
function usd(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === "") return 0;
  const amount = toDecimal(value);
  return amount === null ? null : Math.max(0, amount);
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
