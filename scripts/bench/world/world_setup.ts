/**
 * The service side of the `bench:scoring` world, shared by `bench:predictions`: the miners'
 * hotkeys, their registrations (metagraph, organisation, prices) and running a job once.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { signerFromSecretHex } from "../../../actors/validators/mod.ts";
import { encodePriceRecord, PRICES_SETTING } from "../../../actors/prices/mod.ts";
import type { PeriodicJob } from "../../../actors/runtime/mod.ts";
import type { Storage } from "../../../storage/storage.ts";
import { type Config, loadConfig } from "../../service/config.ts";

/** The hotkeys of the world's miners, by uid (made from a fixed seed: the same every run). */
export function benchHotkeys(miners: number): string[] {
  return Array.from(
    { length: miners },
    (_, uid) => signerFromSecretHex(bytesToHex(sha256(utf8ToBytes(`bench-miner:${uid}`)))).hotkey,
  );
}

/** Runs `job` once under a fresh grant of its lease, as the scheduler would. */
export async function runJobOnce(storage: Storage, job: PeriodicJob, nowMs: number): Promise<void> {
  const lease = await storage.jobLeases.tryAcquire(job.name, { holder: "bench", ttlMs: 600_000 });
  if (!lease) throw new Error(`The lease of ${job.name} is held elsewhere`);
  const fence = { job: job.name, token: lease.token };
  try {
    await job.run(nowMs, { signal: new AbortController().signal, fence });
  } finally {
    await storage.jobLeases.release(job.name, fence);
  }
}

/**
 * What the scoring job and the routes need besides the world's rows: a synced metagraph holding
 * every miner (uid = index), the miners registered to one organisation, and synced prices.
 */
export async function registerBenchMiners(
  storage: Storage,
  keys: readonly string[],
  nowMs: number,
): Promise<void> {
  const lease = await storage.jobLeases.tryAcquire("metagraph-sync", { holder: "bench", ttlMs: 60_000 });
  const fence = { job: "metagraph-sync", token: lease!.token };
  const neurons = keys.map((hotkey, uid) => ({
    uid,
    hotkey,
    coldkey: hotkey,
    active: true,
    validatorPermit: false,
    stakeRao: 0n,
    emissionRao: BigInt(uid) * 1_000_000n,
    incentive: uid / 65_535,
    consensus: 0,
    trust: 0,
    validatorTrust: 0,
    dividends: 0,
    lastUpdate: 1,
  }));
  await storage.metagraph.putFenced({ netuid: 41, block: 1, neurons }, { syncedAtMs: nowMs, fence });
  await storage.jobLeases.release("metagraph-sync", fence);
  await storage.orgs.create({ id: "org_bench", name: "bench", createdAtMs: nowMs });
  for (const hotkey of keys) {
    await storage.orgs.registerMiner("org_bench", hotkey, { atMs: nowMs, makeDefault: false });
  }
  const prices = {
    taoUsd: 412.5,
    alphaTao: 0.0095315,
    minerAlphaPerDay: 2952,
    at: new Date(nowMs).toISOString(),
  };
  const pricesLease = await storage.jobLeases.tryAcquire("prices-sync", { holder: "bench", ttlMs: 60_000 });
  const pricesFence = { job: "prices-sync", token: pricesLease!.token };
  await storage.settings.putFenced(PRICES_SETTING, {
    value: encodePriceRecord({ prices, source: "file", syncedAtMs: nowMs }),
    fence: pricesFence,
  });
  await storage.jobLeases.release("prices-sync", pricesFence);
}

/** The service settings of the world's benchmarks: PostgreSQL at `databaseUrl`, demo metagraph and prices files, no IP throttle. */
export function benchWorldConfig(databaseUrl: string, extra: Record<string, string> = {}): Config {
  return loadConfig({
    FGW_STORAGE: "postgres",
    DATABASE_URL: databaseUrl,
    FGW_IP_RPM: "0",
    FGW_LOG_LEVEL: "error",
    FGW_METAGRAPH_SOURCE: "file",
    FGW_METAGRAPH_FILE: new URL("../../../actors/validators/demo_metagraph.json", import.meta.url).pathname,
    FGW_PRICES_SOURCE: "file",
    FGW_PRICES_FILE: new URL("../../../actors/prices/demo_prices.json", import.meta.url).pathname,
    ...extra,
  });
}
