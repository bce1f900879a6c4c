/**
 * The populated world's registrations: organisations and their miners, agent uploads, the
 * metagraph as its sync job records it, and prices as their job records them.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { DAY_MS, HOUR_MS } from "../../../actors/kernel/mod.ts";
import { encodePriceRecord, PRICES_SETTING } from "../../../actors/prices/mod.ts";
import type { Fence } from "../../../storage/job_lease_store.ts";
import type { Storage } from "../../../storage/storage.ts";
import { neuronAt } from "../neurons.ts";
import { WORLD_START_MS } from "./world_markets.ts";
import { OUTSIDER, WORLD_ORGS, WORLD_VALIDATOR, type WorldMiner } from "./world_miners.ts";

/** The subnet of the world (the service's default `FGW_NETUID`). */
const NETUID = 41;

/** The prices of the world (the demo prices file's): TAO in $, α in TAO, α per day to miners. */
export const WORLD_PRICES = { taoUsd: 412.5, alphaTao: 0.0095315, minerAlphaPerDay: 2952 };

/** Runs `write` under a fresh grant of the job lease `job`, as that job would write. */
async function asJob(storage: Storage, job: string, write: (fence: Fence) => Promise<boolean>) {
  const lease = await storage.jobLeases.tryAcquire(job, { holder: "world", ttlMs: 60_000 });
  if (!lease) throw new Error(`Cannot write as ${job}: its lease is held`);
  const fence = { job, token: lease.token };
  try {
    if (!await write(fence)) throw new Error(`Cannot write as ${job}: fenced off`);
  } finally {
    await storage.jobLeases.release(job, fence);
  }
}

/** The organisations and their miners, registered a day before the world starts (the newcomer when it joins). */
export async function setUpRegistrations(storage: Storage, miners: readonly WorldMiner[]): Promise<string> {
  for (const org of WORLD_ORGS) {
    await storage.orgs.create({ id: org.id, name: org.name, createdAtMs: WORLD_START_MS - 2 * DAY_MS });
  }
  for (const miner of miners) {
    const atMs = Math.min(miner.joinedAtMs, WORLD_START_MS) - DAY_MS;
    const registered = await storage.orgs.registerMiner(miner.orgId, miner.hotkey, {
      atMs,
      makeDefault: false,
    });
    if (registered !== "registered") {
      throw new Error(`Cannot register the world's miner ${miner.uid}: ${registered}`);
    }
  }
  return WORLD_VALIDATOR.hotkey;
}

/** Uploads the agent versions made in `(fromMs, toMs]`. */
export async function uploadAgents(
  storage: Storage,
  miners: readonly WorldMiner[],
  window: { fromMs: number; toMs: number },
): Promise<void> {
  for (const miner of miners) {
    for (const agent of miner.agents) {
      if (agent.uploadedAtMs <= window.fromMs || agent.uploadedAtMs > window.toMs) continue;
      const bytes = utf8ToBytes(agent.code);
      const outcome = await storage.agents.upload(miner.hotkey, {
        versionId: agent.versionId,
        sha256: bytesToHex(sha256(bytes)),
        sizeBytes: bytes.length,
        name: agent.name,
        code: agent.code,
      }, { nowMs: agent.uploadedAtMs, cooldownMs: 0 });
      if (outcome.outcome !== "created") {
        throw new Error(`Cannot upload the world's agent ${agent.versionId}`);
      }
    }
  }
}

/** Records the metagraph as synced at `atMs`: the validator, the outsider and the miners joined by then. */
export async function syncWorldMetagraph(storage: Storage, miners: readonly WorldMiner[], atMs: number) {
  const members = [
    { ...WORLD_VALIDATOR, validator: true },
    ...miners.filter((miner) => miner.joinedAtMs <= atMs).map((miner) => ({ ...miner, validator: false })),
    { ...OUTSIDER, validator: false },
  ];
  const neurons = members.map(({ uid, hotkey, validator }) => ({
    ...neuronAt(uid, { validator }),
    hotkey,
    active: true,
  }));
  const block = 6_800_000 + Math.floor((atMs - WORLD_START_MS) / 12_000);
  await asJob(
    storage,
    "metagraph-sync",
    (fence) => storage.metagraph.putFenced({ netuid: NETUID, block, neurons }, { syncedAtMs: atMs, fence }),
  );
}

/** Records the world's prices as synced at `atMs`. */
export async function recordWorldPrices(storage: Storage, atMs: number): Promise<void> {
  const value = encodePriceRecord({
    prices: { ...WORLD_PRICES, at: new Date(atMs - HOUR_MS / 60).toISOString() },
    source: "file",
    syncedAtMs: atMs,
  });
  await asJob(
    storage,
    "prices-sync",
    (fence) => storage.settings.putFenced(PRICES_SETTING, { value, fence }),
  );
}
