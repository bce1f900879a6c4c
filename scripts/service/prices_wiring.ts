import { type Clock, loggedOnce, type Logger, type UpstreamObserver } from "../../actors/kernel/mod.ts";
import { ChainPriceSource, FilePriceSource, type PriceSource } from "../../actors/prices/mod.ts";
import { PricesSyncJob, PriceView } from "../../actors/prices/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import type { Config } from "./config.ts";

/** The prices of one instance: the periodic job (run by whichever instance holds its lease) and the view. */
export interface PricesWiring {
  job: PricesSyncJob;
  view: PriceView;
  /** How often `refreshView` should run: a tenth of the sync interval, within 1 s .. 30 s. */
  viewRefreshMs: number;
  /** Reloads the view from storage; a failure is logged once until a refresh succeeds again. */
  refreshView(): Promise<void>;
}

export interface PricesDeps {
  storage: Storage;
  clock: Clock;
  log: Logger;
  /** Told about every request to CoinGecko and Subtensor (metrics). */
  upstreams?: UpstreamObserver;
  /** Overrides the configured source (tests). */
  source?: PriceSource;
  /** Told about every failed view refresh, logged or not (metrics). */
  onRefreshError?: () => void;
}

/** Wires the prices from config (`FGW_PRICES_*`, `FGW_NETUID`, `FGW_SUBTENSOR_URL`). */
export function createPrices(config: Config, deps: PricesDeps): PricesWiring {
  const { storage, clock, log } = deps;
  const intervalMs = config.FGW_PRICES_SYNC_MS;
  const view = new PriceView({ settings: storage.settings, clock, intervalMs });
  const refreshView = loggedOnce(() => view.refresh(), {
    log,
    msg: "prices view refresh failed",
    ...(deps.onRefreshError ? { onError: deps.onRefreshError } : {}),
  });
  const job = new PricesSyncJob({
    source: deps.source ?? priceSource(config, deps),
    settings: storage.settings,
    log,
    intervalMs,
    afterSync: refreshView,
  });
  return { job, view, viewRefreshMs: Math.max(1_000, Math.min(intervalMs / 10, 30_000)), refreshView };
}

function priceSource(config: Config, deps: PricesDeps): PriceSource {
  if (config.FGW_PRICES_SOURCE === "file") {
    // config.ts requires the file with this source.
    return new FilePriceSource({ path: config.FGW_PRICES_FILE! });
  }
  return new ChainPriceSource({
    coingeckoUrl: config.FGW_COINGECKO_URL,
    subtensorUrl: config.FGW_SUBTENSOR_URL,
    netuid: config.FGW_NETUID,
    clock: deps.clock,
    ...(deps.upstreams ? { observer: deps.upstreams } : {}),
  });
}
