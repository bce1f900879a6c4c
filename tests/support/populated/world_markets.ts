/**
 * The populated world's markets: real questions, outcomes and tags from the shipped Polymarket
 * snapshot, decoded as ingestion decodes them, each given a fate (resolved, voided, ended awaiting
 * its resolution, open), a time line and a market price path — all from a fixed seed.
 */
import snapshot from "../../../actors/catalog/sources/polymarket_snapshot.json" with { type: "json" };
import { admitMarket, decodeGammaMarket } from "../../../actors/catalog/mod.ts";
import type { SourceMarket } from "../../../actors/catalog/sources/market_source.ts";
import { DAY_MS, HOUR_MS, isoAt } from "../../../actors/kernel/mod.ts";
import type { EventRecord } from "../../../storage/event_record.ts";
import { UNRESOLVED } from "../../../storage/event_record.ts";
import { normalised, pricesOf, type Random, seeded } from "./world_random.ts";

/** The world's "now": the snapshot's capture time (its questions' dates read right then). */
export const WORLD_NOW_MS = Date.UTC(2026, 10, 20, 12);
/** How far back the world's history goes. */
export const WORLD_DAYS = 28;
export const WORLD_START_MS = WORLD_NOW_MS - WORLD_DAYS * DAY_MS;
/** The world moves in steps of this (prices, predictions, history points). */
export const TICK_MS = 6 * HOUR_MS;

/** How many markets of each fate. */
export const FATES = { resolved: 36, voided: 1, awaiting: 3, open: 20 } as const;

export type Fate =
  | { kind: "resolved"; atMs: number; winner: number }
  | { kind: "voided"; atMs: number }
  | { kind: "awaiting" }
  | { kind: "open" };

/** One market of the world and everything that happens to it. */
export interface WorldMarket {
  /** As admitted (admission prices, dates of the world's time line). */
  admitted: EventRecord;
  admittedAtMs: number;
  endMs: number;
  fate: Fate;
  /** The probabilities the outcome was drawn from (the market's prices at admission, pulled toward even). */
  hidden: number[];
  /** The market's prices at `atMs` (outcome order), summing to 1. */
  pricesAt(atMs: number): number[];
}

/** A slow wobble of a price: three waves of seeded period, phase and size. */
function wobble(random: Random): (atMs: number) => number {
  const waves = Array.from({ length: 3 }, () => ({
    periodMs: (1 + random() * 5) * DAY_MS,
    phase: random() * 2 * Math.PI,
    size: 0.01 + random() * 0.05,
  }));
  return (atMs) =>
    waves.reduce((sum, w) => sum + w.size * Math.sin((2 * Math.PI * atMs) / w.periodMs + w.phase), 0);
}

/**
 * The price path: the admission prices, each wobbling; a market that resolves drifts toward its
 * winner as resolution nears (markets learn), and ends there.
 */
function pricePath(base: number[], fate: Fate, admittedAtMs: number, random: Random) {
  const wobbles = base.map(() => wobble(random));
  return (atMs: number): number[] => {
    if (fate.kind === "resolved" && atMs >= fate.atMs) return base.map((_, i) => (i === fate.winner ? 1 : 0));
    const progress = fate.kind === "resolved"
      ? Math.max(0, (atMs - admittedAtMs) / (fate.atMs - admittedAtMs))
      : 0;
    const drift = (i: number) =>
      fate.kind === "resolved" ? ((i === fate.winner ? 1 : 0) - base[i]!) * 0.85 * progress ** 2 : 0;
    const raw = base.map((p, i) => Math.max(0.01, p + drift(i) + wobbles[i]!(atMs) * (1 - progress)));
    return pricesOf(normalised(raw));
  };
}

/** `count` markets of `markets`, taken at even steps through it. */
function spread(markets: readonly SourceMarket[], count: number): SourceMarket[] {
  const step = Math.floor(markets.length / count);
  return markets.filter((_, i) => i % step === 0).slice(0, count);
}

/**
 * The world's markets in fate order (settled, awaiting, open: see `timeline`), one with more than
 * two outcomes in each part; the open ones end at least a day after now in the snapshot.
 */
function pickMarkets(): SourceMarket[] {
  const decoded = (snapshot.markets as unknown[]).map(decodeGammaMarket).filter((m): m is SourceMarket =>
    m !== null && Object.keys(m.outcomePrices).length === m.outcomes.length
  );
  const lasts = (m: SourceMarket) => Date.parse(m.endDate) >= WORLD_NOW_MS + DAY_MS;
  const binary = decoded.filter((m) => m.outcomes.length === 2);
  const multi = decoded.filter((m) => m.outcomes.length > 2);
  const openMulti = multi.find(lasts)!;
  const [settledMulti, awaitingMulti] = multi.filter((m) => !lasts(m));
  const open = spread(binary.filter(lasts), FATES.open - 1);
  const settled = FATES.resolved + FATES.voided;
  const rest = spread(binary.filter((m) => !open.includes(m)), settled + FATES.awaiting - 2);
  return [
    ...rest.slice(0, 5),
    settledMulti!,
    ...rest.slice(5, settled - 1),
    rest[settled - 1]!,
    awaitingMulti!,
    rest[settled]!,
    ...open.slice(0, 15),
    openMulti,
    ...open.slice(15),
  ];
}

/** The one voided market: a slot among the settled ones, a third of the way through. */
const VOIDED_INDEX = 12;

/**
 * The fate and time line of the `index`-th market (in `pickMarkets` order). An open market keeps
 * the snapshot's end date, which its question's dates were written for.
 */
function timeline(index: number, market: SourceMarket, hidden: number[], random: Random) {
  const { resolved, voided, awaiting } = FATES;
  if (index < resolved + voided) {
    // Resolutions spread over the window, the first two days in; each market lived 2..9 days.
    const atMs = WORLD_START_MS + 2 * DAY_MS + Math.round((index / (resolved + voided)) * 25 * DAY_MS) +
      Math.floor(random() * 12) * HOUR_MS;
    const admittedAtMs = Math.max(WORLD_START_MS, atMs - (2 + Math.floor(random() * 8)) * DAY_MS);
    const endMs = atMs + Math.floor(random() * 3) * DAY_MS;
    const fate: Fate = index === VOIDED_INDEX
      ? { kind: "voided", atMs }
      : { kind: "resolved", atMs, winner: draw(hidden, random) };
    return { admittedAtMs, endMs, fate };
  }
  if (index < resolved + voided + awaiting) {
    const endMs = WORLD_NOW_MS - (6 + Math.floor(random() * 36)) * HOUR_MS;
    return {
      admittedAtMs: endMs - (3 + Math.floor(random() * 5)) * DAY_MS,
      endMs,
      fate: { kind: "awaiting" } as Fate,
    };
  }
  const admittedAtMs = WORLD_NOW_MS - (1 + Math.floor(random() * 18)) * DAY_MS;
  const endMs = Date.parse(market.endDate);
  return { admittedAtMs, endMs, fate: { kind: "open" } as Fate };
}

/** An index drawn with probabilities `p`. */
function draw(p: number[], random: Random): number {
  let left = random();
  for (const [i, weight] of p.entries()) {
    left -= weight;
    if (left < 0) return i;
  }
  return p.length - 1;
}

/** Aligns a time to the world's step (writes happen on steps). */
function onTick(ms: number): number {
  return WORLD_START_MS + Math.round((ms - WORLD_START_MS) / TICK_MS) * TICK_MS;
}

/** The world's markets, the same on every call. */
export function worldMarkets(): WorldMarket[] {
  return pickMarkets().map((market, index) => {
    const random = seeded(`market:${market.sourceMarketId}`);
    const base = normalised(market.outcomes.map((o) => market.outcomePrices[o.outcomeId]!));
    // The truth the winner is drawn from: the market's prices pulled halfway toward even, so a
    // forecaster who shrinks the price toward even beats the market on average.
    const hidden = base.map((p) => 1 / base.length + 0.5 * (p - 1 / base.length));
    const line = timeline(index, market, hidden, random);
    const admittedAtMs = onTick(line.admittedAtMs);
    const fate: Fate = "atMs" in line.fate ? { ...line.fate, atMs: onTick(line.fate.atMs) } : line.fate;
    const endMs = Math.ceil(Math.max(line.endMs, "atMs" in fate ? fate.atMs : line.endMs) / HOUR_MS) *
      HOUR_MS;
    const pricesAt = pricePath(base, fate, admittedAtMs, random);
    const admission = Object.fromEntries(
      market.outcomes.map((o, i) => [o.outcomeId, pricesAt(admittedAtMs)[i]!]),
    );
    const admitted: EventRecord = {
      ...admitMarket({ ...market, outcomePrices: admission }, admittedAtMs),
      startDate: isoAt(admittedAtMs - 3 * DAY_MS),
      endDate: isoAt(endMs),
      resolution: { ...UNRESOLVED },
    };
    return { admitted, admittedAtMs, endMs, fate, hidden, pricesAt };
  });
}
