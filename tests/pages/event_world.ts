/**
 * A small world for the event pages and `GET /v1/events/{eventId}`: one event resolved and scored
 * (three miners), one still open with predictions, and an hourly forecast history for both whose
 * consensus values differ from every market price (so a leak is visible).
 */
import { ManualClock } from "../../actors/kernel/mod.ts";
import type { ForecastPoint } from "../../storage/forecast_history_store.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { putEvents, resolved } from "../support/events.ts";
import { runJobOnce } from "../support/jobs.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import {
  BASE,
  DAY,
  HOUR,
  no,
  openEvent,
  storePredictions,
  syncMetagraph,
  yes,
} from "../scoring/job_fixtures.ts";

export { BASE, DAY, HOUR };
export const NOW = BASE + 3 * DAY;
export const RESOLVED_AT = BASE + 50 * HOUR;

/** Resolved at RESOLVED_AT ("Yes" won) and scored: uid 0 said 0.7, uid 1 0.2, uid 2 0.9. */
export const SCORED = openEvent("polymarket-11");
/** Unresolved, with uid 0's prediction of 0.66 stored. */
export const OPEN = openEvent("polymarket-12");

/** The market price of "Yes" at hour `h` after BASE: 0.30..0.79 by hundredths (never a forecast's value). */
export const yesPriceAt = (h: number) => Math.round((0.3 + ((h + 200) % 50) / 100) * 1000) / 1000;
/** The consensus of "Yes" at hour `h`: 0.777 on every point. */
export const CONSENSUS_YES = 0.777;

/** Hourly points of `event` at hours `hours` after BASE. */
export function historyOf(eventId: string, hours: readonly number[]): ForecastPoint[] {
  const event = eventId === SCORED.id ? SCORED : OPEN;
  return hours.map((h) => ({
    eventId,
    atMs: BASE + h * HOUR,
    forecast: { [yes(event)]: CONSENSUS_YES, [no(event)]: 1 - CONSENSUS_YES },
    contributors: 2,
    market: { [yes(event)]: yesPriceAt(h), [no(event)]: 1 - yesPriceAt(h) },
  }));
}

/**
 * The service at NOW over the world: SCORED's points at hours -200 (older than its 7-day range),
 * 0, 1, 2 and 52 (after its resolution); OPEN's at hours -100 (older than its range), 60, 61.
 * `noWon`: SCORED resolves with "No" (its second outcome) winning instead.
 */
export async function eventWorld(options: { noWon?: boolean } = {}): Promise<TestService> {
  const storage = await openKvStorage(":memory:");
  await storePredictions(storage, [SCORED, OPEN], [
    { event: SCORED, uid: 0, pYes: 0.7 },
    { event: SCORED, uid: 1, pYes: 0.2 },
    { event: SCORED, uid: 2, pYes: 0.9 },
    { event: OPEN, uid: 0, pYes: 0.66 },
  ]);
  await putEvents(storage, [resolved(SCORED, RESOLVED_AT, { winner: options.noWon ? 1 : 0 })], RESOLVED_AT);
  await syncMetagraph(storage, [0, 1, 2], { syncedAtMs: NOW });
  await storage.forecastHistory.putPoints([
    ...historyOf(SCORED.id, [-200, 0, 1, 2, 52]),
    ...historyOf(OPEN.id, [-100, 60, 61]),
  ]);
  const service = await openTestService({ storage, clock: new ManualClock(NOW) });
  await runJobOnce(service.scoring.job, { leases: storage.jobLeases, nowMs: NOW });
  await service.metagraph.view.refresh();
  await service.catalog.view.refresh();
  return service;
}
