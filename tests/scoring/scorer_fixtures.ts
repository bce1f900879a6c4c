/** Small hand-made scorer inputs: binary yes/no events and predictions on them. */
import type {
  ScorerEvent,
  ScorerInput,
  ScorerPrediction,
  ScorerRegistration,
} from "../../actors/scoring/mod.ts";

export const COMPUTED_AT = "2026-11-20T12:00:00.000Z";
export const COMPUTED_AT_MS = Date.parse(COMPUTED_AT);
export const DAY = 86_400_000;
export const HOUR = 3_600_000;

export const HOTKEY_1 = "5Fhotkey1";
export const HOTKEY_2 = "5Fhotkey2";
export const HOTKEY_3 = "5Fhotkey3";

/** The ISO instant `ms` milliseconds after the epoch. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The instant `days` days before COMPUTED_AT. */
export function daysAgo(days: number): string {
  return iso(COMPUTED_AT_MS - days * DAY);
}

export interface EventOptions {
  winner?: "yes" | "no" | null;
  status?: "resolved" | "voided" | "unresolved";
  resolvedAt?: string | null;
  endDate?: string;
  admission?: [number, number];
}

/** A yes/no event `id` with outcomes `<id>-yes` and `<id>-no`; resolved "yes" a day ago by default. */
export function binaryEvent(id: string, options: EventOptions = {}): ScorerEvent {
  const status = options.status ?? "resolved";
  const winner = options.winner === undefined ? (status === "resolved" ? "yes" : null) : options.winner;
  const resolvedAt = options.resolvedAt !== undefined
    ? options.resolvedAt
    : status === "unresolved"
    ? null
    : daysAgo(1);
  const [yes, no] = options.admission ?? [0.5, 0.5];
  return {
    id,
    outcomes: [{ outcomeId: `${id}-yes`, name: "Yes" }, { outcomeId: `${id}-no`, name: "No" }],
    endDate: options.endDate ?? daysAgo(0.5),
    outcomePricesAtAdmission: { [`${id}-yes`]: yes, [`${id}-no`]: no },
    resolution: {
      resolutionStatus: status,
      winningOutcomeId: winner === null ? null : `${id}-${winner}`,
      resolvedAt,
    },
  };
}

export interface PredictionOptions {
  hotkey?: string;
  uid?: number | null;
  at?: string;
  /** p(yes), p(no); default 0.5, 0.5. */
  probs?: [number | null, number | null];
  predicted?: "yes" | "no" | string;
  confidence?: number | null;
  /** Market prices at prediction (yes, no); null for none. */
  prices?: [number, number] | null;
  invalid?: boolean;
}

/** A prediction `id` on the binary event `eventId` (predicted two days ago by default). */
export function binaryPrediction(
  id: string,
  eventId: string,
  options: PredictionOptions = {},
): ScorerPrediction {
  const [pYes, pNo] = options.probs ?? [0.5, 0.5];
  const predicted = options.predicted ?? "yes";
  const prices: [number, number] | null = options.prices === undefined ? [0.5, 0.5] : options.prices;
  return {
    agentPredictionId: id,
    eventId,
    minerHotkey: options.hotkey ?? HOTKEY_1,
    minerUid: options.uid === undefined ? 1 : options.uid,
    predictedAt: options.at ?? daysAgo(2),
    predictedOutcomeId: predicted === "yes" || predicted === "no" ? `${eventId}-${predicted}` : predicted,
    confidence: options.confidence === undefined ? 0.7 : options.confidence,
    outcomeProbabilities: { [`${eventId}-yes`]: pYes, [`${eventId}-no`]: pNo },
    outcomePricesAtPrediction: prices === null
      ? null
      : { [`${eventId}-yes`]: prices[0], [`${eventId}-no`]: prices[1] },
    predictionIsInvalid: options.invalid ?? false,
  };
}

/** A registration first seen `hoursAgo` hours before COMPUTED_AT. */
export function registration(hotkey: string, uid: number, hoursAgo = 36): ScorerRegistration {
  return { hotkey, uid, firstSeenAt: iso(COMPUTED_AT_MS - hoursAgo * HOUR) };
}

/** A scorer input at COMPUTED_AT over a 30-day window. */
export function scorerInput(
  parts: Partial<Omit<ScorerInput, "computedAt" | "windowDays">> = {},
): ScorerInput {
  return {
    computedAt: COMPUTED_AT,
    windowDays: 30,
    events: parts.events ?? [],
    predictions: parts.predictions ?? [],
    registrations: parts.registrations ?? [],
    payout: parts.payout ?? { minerAlphaPerDay: 1000, forecastingWeightShare: 0.5, alphaUsd: 2 },
  };
}

/** A deterministic pseudo-random permutation (mulberry32 seeded shuffle). */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
