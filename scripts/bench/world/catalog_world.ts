/**
 * The catalog of `bench:events` and `bench:pages`: synthetic live binary events (two outcomes,
 * prices, volumes and end dates spread by the event's number), the same every run but for `now`.
 */
import type { EventRecord } from "../../../storage/event_record.ts";
import { UNRESOLVED } from "../../../storage/event_record.ts";

const HOUR = 3_600_000;

/** Live event number `i`, admitted at `now`, ending 2 h to about 83 days later. */
export function liveEvent(i: number, now: number): EventRecord {
  const id = `polymarket-${100_000 + i}`;
  const yes = 0.02 + ((i * 37) % 96) / 100;
  const prices = { [`${id}-y`]: Number(yes.toFixed(3)), [`${id}-n`]: Number((1 - yes).toFixed(3)) };
  const at = new Date(now).toISOString();
  return {
    id,
    source: "polymarket",
    sourceMarketId: String(100_000 + i),
    question: `Will synthetic market ${i} resolve Yes by its end date?`,
    description: `Synthetic benchmark market number ${i}. Resolves Yes if the stated condition holds.`,
    outcomes: [{ outcomeId: `${id}-y`, name: "Yes" }, { outcomeId: `${id}-n`, name: "No" }],
    endDate: new Date(now + (2 + (i % 2_000)) * HOUR).toISOString(),
    startDate: new Date(now - (i % 500) * HOUR).toISOString(),
    tagsAtAdmission: [i % 50, 100 + (i % 7)],
    liquidityUsd: 1_000 + ((i * 7_919) % 500_000),
    volumeUsd: 1_000 + ((i * 104_729) % 5_000_000),
    volumeRecentUsd: (i * 31) % 20_000,
    currentLiquidityUsd: 1_000 + ((i * 7_919) % 500_000),
    currentVolumeUsd: 1_000 + ((i * 104_729) % 5_000_000),
    currentOutcomePrices: prices,
    admittedAt: at,
    lastSeenAt: at,
    resolution: { ...UNRESOLVED },
    outcomePricesAtAdmission: prices,
  };
}
