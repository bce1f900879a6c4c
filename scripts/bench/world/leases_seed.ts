/**
 * Sets the validator loop of `bench:leases` up through the service itself: the metagraph synced,
 * an organisation with the miners registered (admin API), an agent per miner, and per round a new
 * batch of pool events made into assignments by the `assignment-sync` job.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { HOUR_MS, isoAt } from "../../../actors/kernel/mod.ts";
import type { PeriodicJob } from "../../../actors/runtime/mod.ts";
import type { Signer } from "../../../actors/validators/mod.ts";
import type { EventRecord } from "../../../storage/event_record.ts";
import { UNRESOLVED } from "../../../storage/event_record.ts";
import type { Service } from "../../service/service.ts";

/** Runs `job` once under a fresh grant of its storage lease, as the scheduler would. */
async function runOnce(service: Service, job: PeriodicJob): Promise<void> {
  const lease = await service.storage.jobLeases.tryAcquire(job.name, { holder: "bench", ttlMs: 120_000 });
  if (!lease) throw new Error(`The lease of ${job.name} is held elsewhere`);
  const fence = { job: job.name, token: lease.token };
  try {
    await job.run(Date.now(), { signal: new AbortController().signal, fence });
  } finally {
    await service.storage.jobLeases.release(job.name, fence);
  }
}

async function admin(service: Service, token: string, path: string, body: unknown) {
  const response = await service.app.request(path, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json as Record<string, unknown>;
}

export async function setUpLoop(service: Service, options: { adminToken: string; miners: Signer[] }) {
  await runOnce(service, service.metagraph.sync);
  const org = await admin(service, options.adminToken, "/admin/v1/orgs", { name: "bench miners" });
  for (const [index, miner] of options.miners.entries()) {
    await admin(service, options.adminToken, `/admin/v1/orgs/${org["id"]}/miners`, { hotkey: miner.hotkey });
    const code = `# bench agent ${index}\ndef agent_main(event):\n    return {}\n`;
    const digest = bytesToHex(sha256(utf8ToBytes(code)));
    const agent = {
      versionId: `agv_${digest.slice(0, 24)}`,
      sha256: digest,
      sizeBytes: code.length,
      name: null,
      code,
    };
    const outcome = await service.storage.agents.upload(miner.hotkey, agent, {
      nowMs: Date.now(),
      cooldownMs: 0,
    });
    if (outcome.outcome !== "created") throw new Error(`Cannot upload the agent of ${miner.hotkey}`);
  }
}

function event(id: string, nowMs: number, endsInHours: number): EventRecord {
  const prices = { [`${id}-yes`]: 0.45, [`${id}-no`]: 0.55 };
  return {
    id,
    source: "bench",
    sourceMarketId: id,
    question: `Will ${id} happen?`,
    description: "A benchmark event.",
    outcomes: [{ outcomeId: `${id}-yes`, name: "Yes" }, { outcomeId: `${id}-no`, name: "No" }],
    endDate: isoAt(nowMs + endsInHours * HOUR_MS),
    startDate: isoAt(nowMs - 24 * HOUR_MS),
    tagsAtAdmission: [],
    liquidityUsd: 10_000,
    volumeUsd: 10_000,
    volumeRecentUsd: 1_000,
    currentLiquidityUsd: 10_000,
    currentVolumeUsd: 10_000,
    currentOutcomePrices: prices,
    admittedAt: isoAt(nowMs),
    lastSeenAt: isoAt(nowMs),
    resolution: { ...UNRESOLVED },
    outcomePricesAtAdmission: prices,
  };
}

/** Adds `events` pool events for `round` and syncs assignments (every miner × every pool event). */
export async function seedRound(service: Service, options: { round: number; events: number }) {
  const nowMs = Date.now();
  for (let index = 0; index < options.events; index++) {
    const id = `bench-r${options.round}-${String(index).padStart(5, "0")}`;
    const stored = await service.storage.events.put(event(id, nowMs, 48 + (index % 100)), 0, nowMs);
    if (!stored) throw new Error(`Cannot store event ${id}`);
  }
  await runOnce(service, service.assignmentSync);
}
