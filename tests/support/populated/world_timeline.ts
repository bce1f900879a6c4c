/**
 * Plays the populated world's history into a service, step by step on its manual clock: markets
 * admitted, their prices moving, miners' predictions leased and submitted through the assignment
 * store, markets resolving, and the service's own jobs run as the scheduler would — the forecast
 * history snapshot every step, the scoring job once a day.
 */
import { DAY_MS, isoAt } from "../../../actors/kernel/mod.ts";
import { predictionValidation } from "../../../actors/validators/mod.ts";
import {
  agentPredictionId,
  type AssignmentTarget,
  type ReportedPrediction,
} from "../../../storage/assignment_record.ts";
import type { EventRecord } from "../../../storage/event_record.ts";
import type { Storage } from "../../../storage/storage.ts";
import { claimAll } from "../assignments.ts";
import { runJobOnce } from "../jobs.ts";
import type { TestService } from "../test_service.ts";
import { TICK_MS, WORLD_NOW_MS, WORLD_START_MS, type WorldMarket } from "./world_markets.ts";
import { forecastOf, type WorldMiner } from "./world_miners.ts";
import { type PlannedPrediction, predictionPlan } from "./world_predictions.ts";
import { seeded } from "./world_random.ts";
import {
  recordWorldPrices,
  setUpRegistrations,
  syncWorldMetagraph,
  uploadAgents,
} from "./world_registrations.ts";

/** What the history step writes for one market: its record as of `atMs`, or null when nothing changes. */
function marketAt(market: WorldMarket, atMs: number): EventRecord | null {
  if (atMs < market.admittedAtMs) return null;
  const { admitted, fate } = market;
  const settledBefore = "atMs" in fate && fate.atMs < atMs;
  if (settledBefore || (fate.kind !== "resolved" && fate.kind !== "voided" && atMs > market.endMs)) {
    return null;
  }
  const prices = market.pricesAt(atMs);
  const current = Object.fromEntries(admitted.outcomes.map((o, i) => [o.outcomeId, prices[i]!]));
  const seen = { ...admitted, currentOutcomePrices: current, lastSeenAt: isoAt(atMs) };
  if (fate.kind === "resolved" && fate.atMs === atMs) {
    const winner = admitted.outcomes[fate.winner]!;
    return {
      ...seen,
      resolution: {
        resolutionStatus: "resolved",
        resolvedAt: isoAt(atMs),
        winningOutcomeId: winner.outcomeId,
        winningOutcomeName: winner.name,
        finalOutcomePrices: current,
      },
    };
  }
  if (fate.kind === "voided" && fate.atMs === atMs) {
    const half = Object.fromEntries(
      admitted.outcomes.map((o) => [o.outcomeId, 1 / admitted.outcomes.length]),
    );
    return {
      ...seen,
      currentOutcomePrices: half,
      resolution: {
        resolutionStatus: "voided",
        resolvedAt: isoAt(atMs),
        winningOutcomeId: null,
        winningOutcomeName: null,
        finalOutcomePrices: half,
      },
    };
  }
  return seen;
}

/** The catalog's side of the world: each market's writes, with its stored version. */
class MarketWriter {
  readonly #versions = new Map<string, number>();
  constructor(readonly storage: Storage) {}

  async write(markets: readonly WorldMarket[], atMs: number): Promise<void> {
    for (const market of markets) {
      const record = marketAt(market, atMs);
      if (!record) continue;
      const version = this.#versions.get(record.id) ?? 0;
      const stored = await this.storage.events.put(record, version, atMs);
      if (!stored) throw new Error(`Cannot write the world's market: ${record.id}`);
      this.#versions.set(record.id, stored.version);
    }
  }
}

/** The target of a planned prediction: the miner's version current at that time. */
function targetOf(planned: PlannedPrediction): AssignmentTarget {
  const agent = planned.miner.agents.findLast((a) => a.uploadedAtMs <= planned.atMs)!;
  return {
    minerHotkey: planned.miner.hotkey,
    minerUid: planned.miner.uid,
    agentVersionId: agent.versionId,
    agentUploadedAtMs: agent.uploadedAtMs,
    eventId: planned.market.admitted.id,
    eventEndsAtMs: planned.market.endMs,
    round: planned.round,
  };
}

/** What the world's validator reports for a planned prediction: the miner's habit on the market then. */
function reportedPrediction(planned: PlannedPrediction, id: string): ReportedPrediction {
  const { admitted, fate, hidden } = planned.market;
  const m = planned.market.pricesAt(planned.atMs);
  const winner = fate.kind === "resolved" ? fate.winner : null;
  const p = forecastOf(planned.miner.habit, { market: m, hidden, winner }, seeded(`forecast:${id}`));
  const ids = admitted.outcomes.map((o) => o.outcomeId);
  const best = p.indexOf(Math.max(...p));
  return {
    schemaVersion: "1.0",
    submittedAt: isoAt(planned.atMs),
    predictionType: ids.length === 2 ? "binary" : "categorical",
    predictedOutcomeId: ids[best]!,
    confidence: p[best]!,
    outcomeProbabilities: Object.fromEntries(ids.map((outcomeId, i) => [outcomeId, p[i]!])),
    outcomePricesAtPrediction: Object.fromEntries(ids.map((outcomeId, i) => [outcomeId, m[i]!])),
    executionMetadata: {
      predictionIsInvalid: planned.invalid,
      runtimeMs: 800 + (planned.atMs / TICK_MS) % 900,
    },
  };
}

/** Leases and submits the predictions due at `atMs` as the world's validator would. */
async function submitDue(
  storage: Storage,
  due: readonly PlannedPrediction[],
  validator: string,
): Promise<void> {
  if (due.length === 0) return;
  const targets = due.map(targetOf);
  await storage.assignments.ensure(targets);
  const claimed = new Map(
    (await claimAll(storage.assignments, validator)).map((c) => [c.assignment.agentPredictionId, c]),
  );
  for (const [index, planned] of due.entries()) {
    const id = agentPredictionId({ ...targets[index]!, round: planned.round });
    const lease = claimed.get(id);
    if (!lease) throw new Error(`Cannot submit the world's prediction: ${id} was not leased`);
    const prediction = reportedPrediction(planned, id);
    const receipt = await storage.assignments.submit(id, {
      validatorHotkey: validator,
      graceMs: 60_000,
      receivedAtMs: planned.atMs,
      prediction,
      validation: predictionValidation(prediction, lease.event, planned.atMs),
      trace: {
        schemaVersion: "1.0",
        trace: { steps: [{ thought: `The ${planned.miner.habit} habit on this market.` }] },
      },
    });
    if (!receipt.stored) throw new Error(`Cannot submit the world's prediction: ${id}`);
  }
}

/** The metagraph and prices as their jobs record them at `atMs`, and this instance's views of them. */
async function syncRegistry(
  service: TestService,
  miners: readonly WorldMiner[],
  atMs: number,
): Promise<void> {
  await syncWorldMetagraph(service.storage, miners, atMs);
  await recordWorldPrices(service.storage, atMs);
  await service.metagraph.view.refresh();
  await service.prices.refresh();
}

/** Plays the world from its start to its now into `service` (built on a store on its clock). */
export async function playWorld(
  service: TestService,
  world: { markets: readonly WorldMarket[]; miners: readonly WorldMiner[] },
): Promise<void> {
  const { storage, clock } = service;
  const validator = await setUpRegistrations(storage, world.miners);
  const writer = new MarketWriter(storage);
  const plan = predictionPlan(world.markets, world.miners);
  const leases = storage.jobLeases;
  for (let atMs = WORLD_START_MS; atMs <= WORLD_NOW_MS; atMs += TICK_MS) {
    clock.set(atMs);
    const daily = (WORLD_NOW_MS - atMs) % DAY_MS === 0;
    if (daily || atMs === WORLD_START_MS) await syncRegistry(service, world.miners, atMs);
    const fromMs = atMs === WORLD_START_MS ? -Infinity : atMs - TICK_MS;
    await uploadAgents(storage, world.miners, { fromMs, toMs: atMs });
    await writer.write(world.markets, atMs);
    await submitDue(storage, plan.filter((p) => p.atMs === atMs), validator);
    // Scoring first: the snapshot reads the board the new table makes (at now, the one served).
    if (daily) await runJobOnce(service.scoring.job, { leases, nowMs: atMs });
    await runJobOnce(service.predictions.snapshotJob, { leases, nowMs: atMs });
  }
}
