/**
 * A scored world for the leaderboard's figures beside the score table (intervals, baselines, the
 * window's counts) and its views (sorting, CSV, the pages).
 *
 * Five events (market 0.4 on "yes", which won), resolved together: uid 0 says 0.9, 0.8, 0.7, 0.6,
 * 0.5 (Briers 0.01, 0.04, 0.09, 0.16, 0.25: mean 0.11, sample sd 0.096695, 95 % half-width
 * 1.96 × sd / √5 = 0.084757; edges 0.36 − Brier: mean 0.25), uid 1 says 0.5 on each (Brier 0.25,
 * edge 0.11), uid 2 is registered and never predicted, uid 3 is no forecasting miner. The
 * consensus history has a forecast of 0.8 on "yes" before the resolution of events 1–3 only.
 */
import { ManualClock } from "../../actors/kernel/mod.ts";
import type { ForecastPoint } from "../../storage/forecast_history_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { minerHotkey } from "../support/assignments.ts";
import { eventRecord, putEvents } from "../support/events.ts";
import { runJobOnce } from "../support/jobs.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import {
  BASE,
  DAY,
  HOUR,
  no,
  openEvent,
  recordPrices,
  registerMiners,
  resolve,
  storePredictions,
  syncMetagraph,
  yes,
} from "./job_fixtures.ts";

export const NOW = BASE + 3 * DAY + 60_000;
export const COMPUTED_AT = BASE + 3 * DAY;
export const RESOLVED_AT = BASE + 50 * HOUR;
const PRICES = { taoUsd: 400, alphaTao: 0.01, minerAlphaPerDay: 2952 };
const UID0_SAYS = [0.9, 0.8, 0.7, 0.6, 0.5];

/** The world's history points: the last one before resolution counts (events 1–3 have a forecast). */
function historyPoints(events: ReturnType<typeof openEvent>[]): ForecastPoint[] {
  const point = (index: number, atMs: number, pYes: number | null): ForecastPoint => {
    const event = events[index]!;
    return {
      eventId: event.id,
      atMs,
      forecast: pYes === null ? null : { [yes(event)]: pYes, [no(event)]: 1 - pYes },
      contributors: pYes === null ? 0 : 2,
      market: { [yes(event)]: 0.4, [no(event)]: 0.6 },
    };
  };
  return [
    point(0, BASE + 40 * HOUR, 0.3), // superseded by the later point
    point(0, BASE + 47 * HOUR, 0.8),
    point(0, BASE + 51 * HOUR, 0.1), // after the resolution: not counted
    point(1, BASE + 47 * HOUR, 0.8),
    point(2, BASE + 47 * HOUR, 0.8),
    point(3, BASE + 47 * HOUR, null), // nobody contributed: no consensus forecast
  ];
}

/**
 * The world, scored at `COMPUTED_AT`, with prices (unless `prices: false`), the consensus history
 * (unless `history: false`: then the consensus baseline has no prediction) and one live event in
 * the catalog; the service's clock is at `NOW`.
 */
export async function boardWorld(
  storage: Storage,
  options: { prices?: boolean; history?: boolean } = {},
): Promise<TestService> {
  const events = [1, 2, 3, 4, 5].map((n) => openEvent(`polymarket-${n}`));
  await storePredictions(
    storage,
    events,
    events.flatMap((event, index) => [
      { event, uid: 0, pYes: UID0_SAYS[index]!, outcome: "yes" as const },
      { event, uid: 1, pYes: 0.5, outcome: "yes" as const },
    ]),
  );
  for (const event of events) await resolve(storage, event, RESOLVED_AT, RESOLVED_AT);
  await putEvents(storage, [eventRecord("polymarket-9", NOW, { endsInHours: 200 })], NOW);
  if (options.history !== false) await storage.forecastHistory.putPoints(historyPoints(events));
  await syncMetagraph(storage, [0, 1, 2, 3], { syncedAtMs: BASE - 10 * DAY });
  await syncMetagraph(storage, [0, 1, 2, 3], { syncedAtMs: NOW });
  await registerMiners(storage, "org-a", [minerHotkey(0), minerHotkey(2)]);
  await registerMiners(storage, "org-b", [minerHotkey(1)]);
  const service = await openTestService({ storage, clock: new ManualClock(NOW) });
  await runJobOnce(service.scoring.job, { leases: storage.jobLeases, nowMs: NOW });
  await service.metagraph.view.refresh();
  await service.catalog.view.refresh();
  if (options.prices !== false) {
    await recordPrices(storage, PRICES, NOW);
    await service.prices.refresh();
  }
  return service;
}
