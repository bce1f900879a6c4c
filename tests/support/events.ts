import type { EventRecord } from "../../storage/event_record.ts";
import { UNRESOLVED } from "../../storage/event_record.ts";
import type { Storage } from "../../storage/storage.ts";
import { isoAt } from "../../actors/kernel/mod.ts";

const HOUR_MS = 3_600_000;

/** A complete, admitted, unresolved binary event ending `endsInHours` after `nowMs`. */
export function eventRecord(
  id: string,
  nowMs: number,
  overrides: Partial<EventRecord> & { endsInHours?: number } = {},
): EventRecord {
  const { endsInHours = 72, ...rest } = overrides;
  const prices = { [`${id}-yes`]: 0.4, [`${id}-no`]: 0.6 };
  return {
    id,
    source: "polymarket",
    sourceMarketId: id.replace(/^polymarket-/, ""),
    question: `Will ${id} happen?`,
    description: `Resolves Yes if ${id} happens.`,
    outcomes: [{ outcomeId: `${id}-yes`, name: "Yes" }, { outcomeId: `${id}-no`, name: "No" }],
    endDate: isoAt(nowMs + endsInHours * HOUR_MS),
    startDate: isoAt(nowMs - 30 * 24 * HOUR_MS),
    tagsAtAdmission: [1],
    liquidityUsd: 5_000,
    volumeUsd: 10_000,
    volumeRecentUsd: 500,
    currentLiquidityUsd: 5_000,
    currentVolumeUsd: 10_000,
    currentOutcomePrices: prices,
    admittedAt: isoAt(nowMs - 24 * HOUR_MS),
    lastSeenAt: isoAt(nowMs),
    resolution: { ...UNRESOLVED },
    outcomePricesAtAdmission: prices,
    ...rest,
  };
}

/** A resolved copy of `event`: its first outcome (or the one at index `winner`) won at `resolvedAtMs`. */
export function resolved(
  event: EventRecord,
  resolvedAtMs: number,
  options: { winner?: number } = {},
): EventRecord {
  const winner = event.outcomes[options.winner ?? 0]!;
  const finalPrices = Object.fromEntries(event.outcomes.map((o) => [o.outcomeId, o === winner ? 1 : 0]));
  return {
    ...event,
    resolution: {
      resolvedAt: isoAt(resolvedAtMs),
      resolutionStatus: "resolved",
      winningOutcomeId: winner.outcomeId,
      winningOutcomeName: winner.name,
      finalOutcomePrices: finalPrices,
    },
  };
}

/** Writes `events` as new or updated records (each write bumps the version). */
export async function putEvents(
  storage: Storage,
  events: readonly EventRecord[],
  nowMs: number,
): Promise<void> {
  for (const event of events) {
    const current = await storage.events.get(event.id);
    const written = await storage.events.put(event, current?.version ?? 0, nowMs);
    if (!written) throw new Error(`Cannot seed event: ${event.id}`);
  }
}
