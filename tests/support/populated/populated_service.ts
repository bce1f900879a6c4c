/**
 * A service with a populated data set, for the browser tests and the screenshots: four weeks of
 * history played on a fixed clock from a fixed seed, so every page shows the same figures on every
 * run. At its "now" (`WORLD_NOW_MS`, 2026-11-20 12:00 UTC):
 *
 * - 60 markets from the shipped Polymarket snapshot (real questions, outcomes and tags; three with
 *   more than two outcomes): 36 resolved over the four weeks and scored, 1 voided, 3 ended and
 *   awaiting their resolution, 20 open. Their prices moved every 6 hours; the forecast history
 *   holds a point per market per 6 hours while it was live (consensus and market prices).
 * - A validator (uid 0), a neuron no organisation registered (uid 9), and eight forecasting
 *   miners in three organisations, one habit each: `informed` (knows the hidden odds: the top
 *   score), `shrinker` (pulls the price toward even: beats the market), `follower` (copies the
 *   price: edge about 0), `noisy`, `overconfident` (both below the market: score 0), `flaky` (40 %
 *   invalid: gate `invalid_rate`), `newcomer` (joined a week ago: gate `min_predictions`), `idle`
 *   (an agent, no prediction: gate `no_predictions`). Two of them uploaded a second agent version
 *   half way through; some re-predicted (a second round).
 * - The scoring job ran once a day (last at now), prices and the metagraph are fresh, and the
 *   views are loaded.
 */
import { ManualClock } from "../../../actors/kernel/mod.ts";
import { openKvStorage } from "../../../storage/kv/kv_storage.ts";
import { openTestService, type TestService } from "../test_service.ts";
import { WORLD_NOW_MS, WORLD_START_MS, type WorldMarket, worldMarkets } from "./world_markets.ts";
import { type WorldMiner, worldMiners } from "./world_miners.ts";
import { playWorld } from "./world_timeline.ts";

export { WORLD_NOW_MS };

/** The world's markets and miners, without building anything (the same on every call). */
export function worldPlan(): { markets: WorldMarket[]; miners: WorldMiner[] } {
  return { markets: worldMarkets(), miners: worldMiners() };
}

/** Ids of the world a page test or a screenshot can name (the same on every run). */
export function worldIds() {
  const { markets, miners } = worldPlan();
  const byFate = (kind: string) => markets.filter((m) => m.fate.kind === kind).map((m) => m.admitted.id);
  const habit = (name: string) => miners.find((m) => m.habit === name)!.hotkey;
  return {
    resolvedEvents: byFate("resolved"),
    openEvents: byFate("open"),
    awaitingEvents: byFate("awaiting"),
    voidedEvent: byFate("voided")[0]!,
    /** A resolved market with more than two outcomes. */
    multiOutcomeEvent:
      markets.find((m) => m.fate.kind === "resolved" && m.admitted.outcomes.length > 2)!.admitted.id,
    topMiner: habit("informed"),
    newcomer: habit("newcomer"),
    idleMiner: habit("idle"),
  };
}

/** Views a started service keeps loaded with timers: loaded once here (the test service runs none). */
export async function loadViews(service: TestService): Promise<void> {
  await service.catalog.view.refresh();
  await service.metagraph.view.refresh();
  await service.prices.refresh();
}

/** A service on an empty in-memory store at the world's now, its views loaded. */
export async function openEmptyService(options: { env?: Record<string, string> } = {}): Promise<TestService> {
  const service = await openTestService({ clock: new ManualClock(WORLD_NOW_MS), ...options });
  await loadViews(service);
  return service;
}

/** A service on an in-memory store holding the populated world (see the module doc), at its now. */
export async function openPopulatedService(
  options: { env?: Record<string, string> } = {},
): Promise<TestService> {
  const clock = new ManualClock(WORLD_START_MS);
  // The store's clock is the world's: leases and claims are judged on the world's time line.
  const storage = await openKvStorage(":memory:", { now: clock.now });
  const service = await openTestService({ storage, clock, ...options });
  try {
    await playWorld(service, worldPlan());
    await loadViews(service);
  } catch (error) {
    await service.close();
    throw error;
  }
  return service;
}
