/**
 * The service the demo runs in-process: the composition root of `deno task start`
 * (scripts/service/) on a Deno KV store in the demo's folder, the sample markets (resolved by the
 * demo through `ResolvingMarketSource`), the demo metagraph and prices, the built-in `echo` LLM
 * provider, the admin API with a random token, and the timings shortened so a board forms within
 * minutes.
 */
import { hex } from "@scure/base";
import { fileURLToPath } from "node:url";
import { type Logger, systemClock } from "../../actors/kernel/mod.ts";
import { SnapshotMarketSource } from "../../actors/catalog/mod.ts";
import { loadConfig } from "../service/config.ts";
import { createService, type Service } from "../service/service.ts";
import { ResolvingMarketSource } from "./resolving_source.ts";

const repoFile = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/**
 * The demo's settings (docs/configuration.md): the shortened timings make a resolution stored
 * within 2 s, scored within 5 s and shown on the board within 1 s.
 */
function demoEnv(
  options: { dataDir: string; port: number; adminToken: string },
): Record<string, string> {
  return {
    FGW_HOST: "127.0.0.1",
    FGW_PORT: String(options.port),
    // The dashboard's origin: a host name, since WebAuthn refuses IP addresses.
    FGW_PUBLIC_URL: `http://localhost:${options.port}`,
    FGW_STORAGE: "kv",
    FGW_DATA_DIR: options.dataDir,
    FGW_MARKET_SOURCE: "snapshot",
    FGW_METAGRAPH_SOURCE: "file",
    FGW_METAGRAPH_FILE: repoFile("actors/validators/demo_metagraph.json"),
    FGW_PRICES_SOURCE: "file",
    FGW_PRICES_FILE: repoFile("actors/prices/demo_prices.json"),
    FGW_ADMIN_TOKEN: options.adminToken,
    FGW_INGEST_INTERVAL_MS: "2000",
    FGW_SCORING_INTERVAL_MS: "5000",
    FGW_LEADERBOARD_CACHE_MS: "1000",
    // One validator and the demo's own reads share 127.0.0.1: no per-address throttle.
    FGW_IP_RPM: "0",
    // A few signatures a second: checked inline, no verification threads to start.
    FGW_VERIFY_WORKERS: "0",
    FGW_LOG_LEVEL: "warn",
  };
}

/** The running demo service. */
export interface DemoService {
  service: Service;
  markets: ResolvingMarketSource;
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** `http://localhost:<port>`: the dashboard's origin (`FGW_PUBLIC_URL`). */
  publicBase: string;
  adminToken: string;
  /** Stops serving, then closes the service and its store. */
  close(): Promise<void>;
}

/**
 * Starts the service on `port` (when taken, on a free port instead) with its store in `dataDir`.
 */
export async function startDemoService(
  options: { dataDir: string; port: number; log: Logger },
): Promise<DemoService> {
  const adminToken = hex.encode(crypto.getRandomValues(new Uint8Array(24)));
  const port = portToUse(options.port);
  const config = loadConfig(demoEnv({ ...options, port, adminToken }));
  const markets = new ResolvingMarketSource(
    new SnapshotMarketSource({ path: config.FGW_SNAPSHOT_FILE, rebaseTo: systemClock }),
  );
  const service = await createService(config, { log: options.log, marketSource: markets });
  const server = serve(service, port);
  service.start();
  return {
    service,
    markets,
    base: `http://127.0.0.1:${server.addr.port}`,
    publicBase: `http://localhost:${server.addr.port}`,
    adminToken,
    close: async () => {
      await server.shutdown();
      await service.close();
    },
  };
}

/**
 * `port` when it is free, else (or for 0) a free one: known before the service is made, since the
 * dashboard's origin names it.
 */
function portToUse(port: number): number {
  const probe = (on: number) => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: on });
    const { port: bound } = listener.addr as Deno.NetAddr;
    listener.close();
    return bound;
  };
  try {
    return probe(port);
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse) || port === 0) throw error;
    return probe(0);
  }
}

function serve(service: Service, port: number): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, service.app.fetch);
}
