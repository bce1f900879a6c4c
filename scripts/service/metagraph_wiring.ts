import type { Clock, Logger, UpstreamObserver } from "../../actors/kernel/mod.ts";
import {
  FileMetagraphSource,
  type MetagraphSource,
  MetagraphSyncJob,
  MetagraphView,
  SubtensorMetagraphSource,
} from "../../actors/validators/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import type { Config } from "./config.ts";

/** The metagraph of one instance: its view (for routes), its sync job, and the source it reads. */
export interface Metagraph {
  view: MetagraphView;
  sync: MetagraphSyncJob;
  source: MetagraphSource;
  /**
   * Refreshes the view from storage, logging a failure once per run of failures (a storage
   * outage does not log every refresh period); the view keeps what it had meanwhile.
   */
  poll(): Promise<void>;
}

export interface MetagraphDeps {
  storage: Storage;
  clock: Clock;
  log: Logger;
  /** Told about every request to the Subtensor node (metrics). */
  upstreams?: UpstreamObserver;
  /** Overrides the configured source (tests). */
  source?: MetagraphSource;
}

/** Wires the metagraph from config (`FGW_NETUID`, `FGW_METAGRAPH_*`, `FGW_SUBTENSOR_URL`). */
export function createMetagraph(config: Config, deps: MetagraphDeps): Metagraph {
  const { storage, clock, log } = deps;
  const netuid = config.FGW_NETUID;
  const source = deps.source ?? configuredSource(config, deps);
  const view = new MetagraphView({
    store: storage.metagraph,
    netuid,
    syncIntervalMs: config.FGW_METAGRAPH_SYNC_MS,
  });
  const sync = new MetagraphSyncJob({
    source,
    store: storage.metagraph,
    netuid,
    intervalMs: config.FGW_METAGRAPH_SYNC_MS,
    clock,
    log,
    afterSync: () => view.refresh(),
  });
  let failing = false;
  const poll = async () => {
    try {
      await view.refresh();
      failing = false;
    } catch (error) {
      if (!failing) log({ level: "error", msg: "metagraph view refresh failed", error: String(error) });
      failing = true;
    }
  };
  return { view, sync, source, poll };
}

function configuredSource(config: Config, deps: MetagraphDeps): MetagraphSource {
  if (config.FGW_METAGRAPH_SOURCE === "file") {
    // The config schema refuses `file` without FGW_METAGRAPH_FILE.
    return new FileMetagraphSource({ path: config.FGW_METAGRAPH_FILE!, netuid: config.FGW_NETUID });
  }
  return new SubtensorMetagraphSource({
    url: config.FGW_SUBTENSOR_URL,
    netuid: config.FGW_NETUID,
    clock: deps.clock,
    ...(deps.upstreams ? { observer: deps.upstreams } : {}),
  });
}
