import { ManualClock } from "../../actors/kernel/mod.ts";
import { type Logger, silentLogger } from "../../actors/kernel/mod.ts";
import type { MarketSource } from "../../actors/catalog/mod.ts";
import type { MetagraphSource } from "../../actors/validators/mod.ts";
import type { PriceSource } from "../../actors/prices/mod.ts";
import { type Config, loadConfig } from "../../scripts/service/config.ts";
import { createService, type Service } from "../../scripts/service/service.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { Storage } from "../../storage/storage.ts";

/** Starts at 2026-11-20T12:00:00Z, the shipped snapshot's capture time. */
export const TEST_START_MS = Date.UTC(2026, 10, 20, 12);

export interface TestServiceOptions {
  env?: Record<string, string>;
  clock?: ManualClock;
  storage?: Storage;
  marketSource?: MarketSource;
  metagraphSource?: MetagraphSource;
  priceSource?: PriceSource;
  /** Where the provider catalog's `apiKeyEnv` variables are read (default: the process environment). */
  providerEnv?: Record<string, string>;
  /** The service's logger (default: silent). */
  log?: Logger;
}

export interface TestService extends Service {
  clock: ManualClock;
  config: Config;
  /** `app.request` with an absolute path. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Closes the service and its storage. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** A whole service in-process on in-memory KV (or the given storage), with a manual clock. */
export async function openTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const clock = options.clock ?? new ManualClock(TEST_START_MS);
  // Signatures are verified inline unless a test asks for threads: a verification thread costs
  // a start of its own (an isolate and the WebAssembly), which most tests' few requests never
  // repay (tests/validators/verify_pool_test.ts and the lease race use threads).
  const config = loadConfig({ FGW_IP_RPM: "0", FGW_VERIFY_WORKERS: "0", ...options.env });
  const storage = options.storage ?? await openKvStorage(":memory:");
  const service = await createService(config, {
    clock: clock.now,
    log: options.log ?? silentLogger,
    storage,
    ...(options.marketSource ? { marketSource: options.marketSource } : {}),
    ...(options.metagraphSource ? { metagraphSource: options.metagraphSource } : {}),
    ...(options.priceSource ? { priceSource: options.priceSource } : {}),
    ...(options.providerEnv ? { providerEnv: options.providerEnv } : {}),
  });
  return {
    ...service,
    clock,
    config,
    request: (path, init) => Promise.resolve(service.app.request(path, init)),
    [Symbol.asyncDispose]: () => service.close(),
  };
}
