/**
 * Raw Polymarket Gamma market objects, in the wire shape of `GET /markets/keyset` (JSON-encoded
 * `outcomes`/`outcomePrices`/`clobTokenIds`, decimal strings beside numbers, numeric-string ids).
 * `gammaMarket` builds one known market for a test; `generateGammaMarkets` builds many realistic,
 * deterministic ones (the shipped snapshot and the ingestion benchmark use it).
 */
import { isoAt } from "../../actors/kernel/mod.ts";
import { TOPICS } from "./gamma_topics.ts";

/** One market as Gamma serves it (a plain JSON object). */
export type RawGammaMarket = Record<string, unknown>;

/** Capture instant of the shipped snapshot; the generator's default "now". */
export const SNAPSHOT_CAPTURED_AT = "2026-11-20T12:00:00.000Z";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const YES_TOKEN = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const NO_TOKEN = "52114319501245915516055106046884209969926127482827954674443846427813813222426";

/** A live binary market ending 2026-11-23, every field the decoder reads set; override any field. */
export function gammaMarket(overrides: RawGammaMarket = {}): RawGammaMarket {
  return {
    id: "612345",
    question: "Will the Fed cut rates at the December 2026 meeting?",
    conditionId: "0x9c1f3bd4a9b3e1c7e5d2f0a8b6c4d2e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1",
    slug: "will-the-fed-cut-rates-at-the-december-2026-meeting",
    description:
      'This market will resolve to "Yes" if the FOMC lowers the target range at its December meeting.',
    outcomes: '["Yes", "No"]',
    outcomePrices: '["0.615", "0.385"]',
    clobTokenIds: JSON.stringify([YES_TOKEN, NO_TOKEN]),
    startDate: "2026-10-01T08:01:34.856648Z",
    createdAt: "2026-10-01T07:59:12.12345Z",
    endDate: "2026-11-23T19:00:00Z",
    endDateIso: "2026-11-23",
    active: true,
    closed: false,
    archived: false,
    liquidity: "48211.0532",
    liquidityNum: 48211.0532,
    volume: "1250000.75",
    volumeNum: 1250000.75,
    volume24hr: 38210.5,
    umaResolutionStatuses: "[]",
    tags: [
      { id: "2", label: "Politics", slug: "politics", forceShow: false },
      { id: "100328", label: "Economy", slug: "economy", forceShow: false },
    ],
    ...overrides,
  };
}

/** The decoded outcome ids of `gammaMarket()`. */
export const GAMMA_MARKET_TOKENS = { yes: YES_TOKEN, no: NO_TOKEN } as const;

type Kind = "open" | "openPastEnd" | "resolved" | "voided" | "disputed" | "proposed" | "zeroPrices";

const KIND_WEIGHTS: ReadonlyArray<readonly [Kind, number]> = [
  ["open", 0.725],
  ["openPastEnd", 0.03],
  ["resolved", 0.2],
  ["voided", 0.015],
  ["disputed", 0.01],
  ["proposed", 0.01],
  ["zeroPrices", 0.01],
];

/** A deterministic pseudo-random source (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` realistic Gamma markets, the same for the same seed and `nowMs` (default: the snapshot's
 * capture time). About two thirds are open (a third of those end 24 h..7 d after `nowMs`), the rest
 * closed within the last 30 days: resolved, voided 50/50, disputed, proposed, or with all-zero
 * prices. Ids increase with the index. Liquidity spans $200..$4M (some below $1,000).
 */
export function generateGammaMarkets(
  count: number,
  options: { seed?: number; nowMs?: number } = {},
): RawGammaMarket[] {
  const random = seededRandom(options.seed ?? 1);
  const nowMs = options.nowMs ?? Date.parse(SNAPSHOT_CAPTURED_AT);
  const markets: RawGammaMarket[] = [];
  for (let index = 0; index < count; index++) markets.push(generateOne(index, nowMs, random));
  return markets;
}

function generateOne(index: number, nowMs: number, random: () => number): RawGammaMarket {
  const kind = weighted(KIND_WEIGHTS, random());
  const endMs = endDateFor(kind, nowMs, random);
  const topic = TOPICS[Math.floor(random() * TOPICS.length)]!;
  const question = topic.questions[Math.floor(random() * topic.questions.length)]!(random, endMs);
  const outcomes = question.outcomes ?? ["Yes", "No"];
  const id = String(600_000 + index * 3 + Math.floor(random() * 3));
  const startMs = Math.min(endMs, nowMs) - Math.floor((3 + random() * 60) * DAY_MS);
  return {
    id,
    question: question.text,
    conditionId: `0x${hex(random, 64)}`,
    slug: `${slugify(question.text)}-${id}`,
    description: question.description,
    outcomes: JSON.stringify(outcomes),
    outcomePrices: JSON.stringify(pricesFor(kind, outcomes.length, random)),
    clobTokenIds: JSON.stringify(outcomes.map(() => digits(random, 77))),
    questionID: `0x${hex(random, 64)}`,
    startDate: isoAt(startMs).replace("Z", `${Math.floor(random() * 1000)}Z`),
    createdAt: isoAt(startMs - 5 * 60_000),
    endDate: isoAt(endMs).replace(".000Z", "Z"),
    endDateIso: isoAt(endMs).slice(0, 10),
    active: true,
    archived: false,
    ...statusFields(kind, endMs, nowMs, random),
    ...amountFields(kind, random),
    tags: [...topic.tags, ...(question.tags ?? [])],
  };
}

function weighted<T>(weights: ReadonlyArray<readonly [T, number]>, roll: number): T {
  let left = roll;
  for (const [value, weight] of weights) {
    if (left < weight) return value;
    left -= weight;
  }
  return weights[0]![0];
}

function endDateFor(kind: Kind, nowMs: number, random: () => number): number {
  const hour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
  if (kind === "openPastEnd") return hour(nowMs - (2 + random() * 70) * HOUR_MS);
  if (kind !== "open") return hour(nowMs - (0.5 + random() * 29) * DAY_MS);
  const roll = random();
  if (roll < 0.1) return hour(nowMs + (2 + random() * 21) * HOUR_MS);
  if (roll < 0.45) return hour(nowMs + (25 + random() * 142) * HOUR_MS);
  return hour(nowMs + (7.5 + random() * 112) * DAY_MS);
}

function pricesFor(kind: Kind, size: number, random: () => number): string[] {
  if (kind === "voided" && size === 2) return ["0.5", "0.5"];
  if (kind === "zeroPrices") return Array.from({ length: size }, () => "0");
  if (kind === "open" || kind === "openPastEnd") return livePrices(size, random);
  const winner = Math.floor(random() * size);
  return Array.from({ length: size }, (_, index) => (index === winner ? "1" : "0"));
}

function livePrices(size: number, random: () => number): string[] {
  const weights = Array.from({ length: size }, () => 0.04 + random());
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const prices = weights.map((weight) => Math.round((weight / total) * 1000) / 1000);
  const rest = prices.slice(0, -1).reduce((sum, price) => sum + price, 0);
  prices[size - 1] = Math.round((1 - rest) * 1000) / 1000;
  return prices.map(String);
}

function statusFields(kind: Kind, endMs: number, nowMs: number, random: () => number): RawGammaMarket {
  if (kind === "open") return { closed: false, umaResolutionStatuses: "[]" };
  if (kind === "openPastEnd") {
    return { closed: false, umaResolutionStatus: "proposed", umaResolutionStatuses: '["proposed"]' };
  }
  const closedMs = Math.min(nowMs - 60_000, endMs + Math.floor((0.2 + random() * 30) * HOUR_MS));
  const status = kind === "disputed" ? "disputed" : kind === "proposed" ? "proposed" : "resolved";
  return {
    closed: true,
    closedTime: isoAt(closedMs).replace("T", " ").replace(/\.\d{3}Z$/, "+00"),
    umaEndDate: isoAt(closedMs).replace(".000Z", "Z"),
    umaResolutionStatus: status,
    umaResolutionStatuses: status === "disputed" ? '["proposed", "disputed"]' : '["proposed"]',
  };
}

/** Amounts vary in form like Gamma's do: both forms, only the decimal string, or only the number. */
function amountFields(kind: Kind, random: () => number): RawGammaMarket {
  const live = kind === "open" || kind === "openPastEnd";
  const liquidity = live ? round2(10 ** (2.3 + random() * 4.3)) : round2(random() * 40);
  const volume = round2((liquidity + 500) * (2 + random() * 60));
  const volume24hr = live ? round2(volume * random() * 0.08) : 0;
  const form = random();
  if (form < 0.6) {
    return {
      liquidity: String(liquidity),
      liquidityNum: liquidity,
      volume: String(volume),
      volumeNum: volume,
      volume24hr,
    };
  }
  if (form < 0.85) return { liquidity: String(liquidity), volume: String(volume), volume24hr };
  return { liquidityNum: liquidity, volumeNum: volume, volume24hrClob: volume24hr };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function hex(random: () => number, length: number): string {
  let text = "";
  while (text.length < length) text += Math.floor(random() * 0x100000000).toString(16).padStart(8, "0");
  return text.slice(0, length);
}

function digits(random: () => number, length: number): string {
  let text = String(1 + Math.floor(random() * 9));
  while (text.length < length) text += String(Math.floor(random() * 1e8)).padStart(8, "0");
  return text.slice(0, length);
}

function slugify(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 80);
}
