import { hex } from "@scure/base";
import { CatalogView } from "../../actors/catalog/mod.ts";
import { type Clock, isoAt } from "../../actors/kernel/mod.ts";
import { eventActorKind } from "../../actors/catalog/mod.ts";
import { MarketIngestionJob } from "../../actors/catalog/mod.ts";
import type { Logger, UpstreamObserver } from "../../actors/kernel/mod.ts";
import { type PoolRules } from "../../actors/catalog/mod.ts";
import { DAY_MS } from "../../actors/kernel/mod.ts";
import type { ActorSystem } from "../../actors/runtime/mod.ts";
import { GammaMarketSource } from "../../actors/catalog/mod.ts";
import type { MarketSource } from "../../actors/catalog/mod.ts";
import { SnapshotMarketSource } from "../../actors/catalog/mod.ts";
import { CursorCodec } from "../../routes/http/cursor.ts";
import type { EventRoutesDeps } from "../../routes/catalog/events.ts";
import type { Storage } from "../../storage/storage.ts";
import type { Config } from "./config.ts";

/**
 * Setting that records the last completed ingestion pass of any instance (`{"at","token"}`), written
 * fenced by the run's lease token: a run that lost its job cannot overwrite a newer run's record.
 */
const LAST_PASS = "catalog_last_pass";

/** The market catalog of one instance: its view, its ingestion job, and what its routes need. */
export interface Catalog {
  view: CatalogView;
  ingestion: MarketIngestionJob;
  routes: EventRoutesDeps;
  /** True once the view serves events, or serves the result of a pass by this or another instance. */
  ready(): Promise<boolean>;
}

export interface CatalogDeps {
  storage: Storage;
  actors: ActorSystem;
  clock: Clock;
  log: Logger;
  /** Overrides the configured market source (tests, benchmarks). */
  source?: MarketSource;
  /** Told about every request to the market source's upstream (metrics). */
  upstreams?: UpstreamObserver;
  /** Told when the source contradicts a settled resolution (metrics). */
  onSettlementContradicted?: (eventId: string) => void;
}

/** The source name of the offline fallback's sample markets (event ids `snapshot-…`). */
const SAMPLE_SOURCE = "snapshot";

/** Wires the catalog from config. The cursor secret is shared by every instance through storage. */
export async function createCatalog(config: Config, deps: CatalogDeps): Promise<Catalog> {
  const { storage, actors, clock, log } = deps;
  // Set once this instance's view has published the result of one of its own passes.
  let passServed = false;
  const view = new CatalogView({
    store: storage.events,
    clock,
    retainMs: config.FGW_CURSOR_TTL_MS,
    overlapMs: config.FGW_VIEW_OVERLAP_MS,
    fullReloadMs: config.FGW_VIEW_FULL_RELOAD_MS,
    publishMs: config.FGW_VIEW_PUBLISH_MS,
  });
  // As a fallback the sample markets are stored under their own source name, never as live data.
  const snapshotOnly = config.FGW_MARKET_SOURCE === "snapshot";
  const snapshot = new SnapshotMarketSource({
    path: config.FGW_SNAPSHOT_FILE,
    rebaseTo: clock,
    ...(snapshotOnly ? {} : { sourceName: SAMPLE_SOURCE }),
  });
  const live = snapshotOnly ? snapshot : new GammaMarketSource({
    baseUrl: config.FGW_GAMMA_URL,
    clock,
    ...(deps.upstreams ? { observer: deps.upstreams } : {}),
  });
  const ingestion = new MarketIngestionJob({
    source: deps.source ?? live,
    ...(deps.onSettlementContradicted ? { onSettlementContradicted: deps.onSettlementContradicted } : {}),
    ...(config.FGW_SNAPSHOT_FALLBACK && !snapshotOnly ? { fallback: snapshot } : {}),
    // Sample copies of an earlier offline start (another mode) leave the catalog in this mode too.
    sampleSource: SAMPLE_SOURCE,
    actors,
    eventKind: actors.register(eventActorKind({
      store: storage.events,
      clock,
      rules: {
        minLiquidityUsd: config.FGW_ADMIT_MIN_LIQUIDITY_USD,
        minVolumeUsd: config.FGW_ADMIT_MIN_VOLUME_USD,
        lastSeenResolutionMs: config.FGW_LAST_SEEN_RESOLUTION_MS,
      },
    })),
    store: storage.events,
    clock,
    log,
    intervalMs: config.FGW_INGEST_INTERVAL_MS,
    maxBackoffMs: config.FGW_INGEST_MAX_BACKOFF_MS,
    afterPass: async ({ fence }) => {
      await view.refresh();
      if (ingestion.completedPasses === 0) return;
      passServed = true;
      const value = JSON.stringify({ at: isoAt(clock()), token: fence.token });
      if (!(await storage.settings.putFenced(LAST_PASS, { value, fence }))) {
        log({ level: "warn", msg: "ingestion pass not recorded: a newer run holds the job", ...fence });
      }
    },
  });
  const secret = await storage.settings.getOrCreate("cursor_secret", randomSecret());
  let ready = false;
  return {
    view,
    ingestion,
    routes: {
      catalog: view,
      cursors: new CursorCodec(secret),
      clock,
      pool: poolRules(config),
      cacheMs: config.FGW_EVENTS_CACHE_MS,
    },
    ready: async () => {
      if (ready) return true;
      if (!view.loaded) return false;
      if (view.current().size > 0 || passServed) return ready = true;
      if ((await storage.settings.get(LAST_PASS)) === null) return false;
      // Another instance finished a pass: serve what it wrote before saying ready.
      await view.refresh();
      return ready = true;
    },
  };
}

function poolRules(config: Config): PoolRules {
  return {
    minEndInMs: DAY_MS,
    maxEndInMs: 7 * DAY_MS,
    minPrice: config.FGW_POOL_MIN_PRICE,
    maxPrice: config.FGW_POOL_MAX_PRICE,
    deniedSubstrings: config.FGW_POOL_DENY_SUBSTRINGS.map((item) => item.toLowerCase()),
  };
}

function randomSecret(): string {
  return hex.encode(crypto.getRandomValues(new Uint8Array(32)));
}
