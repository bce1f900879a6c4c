/**
 * A small world for the scoring job: events in the catalog, a metagraph, and predictions stored
 * through the real assignment store (ensured, claimed by a validator, submitted).
 */
import assert from "node:assert/strict";
import type { Storage } from "../../storage/storage.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { Fence } from "../../storage/job_lease_store.ts";
import type { Neuron } from "../../actors/validators/mod.ts";
import { silentLogger } from "../../actors/kernel/mod.ts";
import { encodePriceRecord, PRICES_SETTING } from "../../actors/prices/mod.ts";
import { type ScoringJob, ScoringJob as Job, type ScoringJobOptions } from "../../actors/scoring/mod.ts";
import { claimAll, idOf, minerHotkey, targetFor } from "../support/assignments.ts";
import { eventRecord, putEvents, resolved } from "../support/events.ts";
import { neuronAt } from "../support/neurons.ts";

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const INTERVAL = 300_000;
export const VALIDATOR = "5Validator0001";

/** Now on the real clock, to the hour: claims compare event ends with the storage's (real) clock. */
export const BASE = Math.floor(Date.now() / HOUR) * HOUR;

/** A binary event `id` (outcomes `<id>-yes`, `<id>-no`; prices 0.4 / 0.6) ending 48 h after BASE. */
export function openEvent(id: string): EventRecord {
  return eventRecord(id, BASE, { endsInHours: 48 });
}

export const yes = (event: EventRecord) => event.outcomes[0]!.outcomeId;
export const no = (event: EventRecord) => event.outcomes[1]!.outcomeId;

/** One planned submission: miner `uid` (hotkey `minerHotkey(uid)`) says P(yes) = `pYes` on `event`. */
export interface Planned {
  event: EventRecord;
  uid: number;
  pYes: number;
  /** The outcome it names; default the likelier one. */
  outcome?: "yes" | "no";
  /** The agent's own invalid flag. */
  invalid?: boolean;
  receivedAtMs?: number;
  round?: number;
  /** Claimed now, submitted later by the test (`submit`). */
  later?: boolean;
  /** The reasoning trace submitted (default: no steps). */
  trace?: unknown;
}

/** Stores `events` unresolved, then ensures, claims and submits every planned prediction; returns their ids. */
export async function storePredictions(
  storage: Storage,
  events: readonly EventRecord[],
  plan: readonly Planned[],
): Promise<string[]> {
  await putEvents(storage, events, BASE);
  const targets = plan.map((p) => targetFor(p.uid, p.event, { round: p.round ?? 0 }));
  await storage.assignments.ensure(targets);
  const claimed = new Map(
    (await claimAll(storage.assignments, VALIDATOR)).map((c) => [c.assignment.agentPredictionId, c]),
  );
  const ids = targets.map(idOf);
  for (const [index, p] of plan.entries()) {
    assert.ok(claimed.has(ids[index]!), `assignment of uid ${p.uid} on ${p.event.id} should be claimed`);
  }
  for (const [index, p] of plan.entries()) if (!p.later) await submit(storage, ids[index]!, p);
  return ids;
}

/** Submits planned prediction `p` for assignment `id` (claimed by VALIDATOR). */
export async function submit(storage: Storage, id: string, p: Planned): Promise<void> {
  const outcome = p.outcome ?? (p.pYes >= 0.5 ? "yes" : "no");
  const receipt = await storage.assignments.submit(id, {
    validatorHotkey: VALIDATOR,
    graceMs: 60_000,
    receivedAtMs: p.receivedAtMs ?? BASE + HOUR,
    prediction: {
      schemaVersion: "1.0",
      submittedAt: "2026-11-21T05:59:58.000Z",
      predictionType: "binary",
      predictedOutcomeId: outcome === "yes" ? yes(p.event) : no(p.event),
      confidence: Math.max(p.pYes, 1 - p.pYes),
      outcomeProbabilities: { [yes(p.event)]: p.pYes, [no(p.event)]: 1 - p.pYes },
      outcomePricesAtPrediction: { [yes(p.event)]: 0.5, [no(p.event)]: 0.5 },
      executionMetadata: { predictionIsInvalid: p.invalid ?? false },
    },
    validation: {
      isValid: !p.invalid,
      reasons: p.invalid ? ["agent_reported_invalid"] : [],
      rawObserved: null,
    },
    trace: p.trace ?? { schemaVersion: "1.0", trace: { steps: [] } },
  });
  assert.equal(receipt.stored, true);
}

/** Resolves `event` ("yes" won) at `resolvedAtMs`, written at `writtenAtMs` (its feed time). */
export async function resolve(
  storage: Storage,
  event: EventRecord,
  resolvedAtMs: number,
  writtenAtMs: number,
) {
  const settled = resolved(event, resolvedAtMs);
  await putEvents(storage, [settled], writtenAtMs);
  return settled;
}

/** Records a metagraph of miners `uids` (hotkey `minerHotkey(uid)` unless renamed) synced at `syncedAtMs`. */
export async function syncMetagraph(
  storage: Storage,
  uids: readonly number[],
  options: { syncedAtMs: number; hotkeys?: Record<number, string> },
): Promise<void> {
  const lease = await storage.jobLeases.tryAcquire("metagraph-sync", { holder: "test", ttlMs: 60_000 });
  assert.ok(lease);
  const fence: Fence = { job: "metagraph-sync", token: lease.token };
  const neurons: Neuron[] = uids.map((uid) => ({
    ...neuronAt(uid),
    hotkey: options.hotkeys?.[uid] ?? minerHotkey(uid),
  }));
  assert.ok(await storage.metagraph.putFenced({ netuid: 41, block: 100, neurons }, { ...options, fence }));
  await storage.jobLeases.release("metagraph-sync", fence);
}

/** The scoring job over `storage` with test settings (30-day window, 5-minute interval). */
export function scoringJob(storage: Storage, options: Partial<ScoringJobOptions> = {}): ScoringJob {
  return new Job({
    events: storage.events,
    assignments: storage.assignments,
    scores: storage.scores,
    settings: storage.settings,
    metagraph: storage.metagraph,
    netuid: 41,
    intervalMs: INTERVAL,
    windowDays: 30,
    lateSubmissionMs: 11 * 60_000,
    overlapMs: 0,
    log: silentLogger,
    ...options,
  });
}

/** Records prices as the prices job would (the `prices_latest` setting), synced at `syncedAtMs`. */
export async function recordPrices(
  storage: Storage,
  prices: { taoUsd: number; alphaTao: number; minerAlphaPerDay: number },
  syncedAtMs: number,
): Promise<void> {
  const lease = await storage.jobLeases.tryAcquire("prices-sync", { holder: "test", ttlMs: 60_000 });
  assert.ok(lease);
  const fence: Fence = { job: "prices-sync", token: lease.token };
  const value = encodePriceRecord({
    prices: { ...prices, at: new Date(syncedAtMs - 1_000).toISOString() },
    source: "file",
    syncedAtMs,
  });
  assert.ok(await storage.settings.putFenced(PRICES_SETTING, { value, fence }));
  await storage.jobLeases.release("prices-sync", fence);
}

/** Registers `hotkeys` as miners of a new organisation `orgId`. */
export async function registerMiners(
  storage: Storage,
  orgId: string,
  hotkeys: readonly string[],
): Promise<void> {
  await storage.orgs.create({ id: orgId, name: orgId, createdAtMs: BASE });
  for (const hotkey of hotkeys) {
    assert.equal(
      await storage.orgs.registerMiner(orgId, hotkey, { atMs: BASE, makeDefault: false }),
      "registered",
    );
  }
}

/**
 * Five events (polymarket-1..5) resolved together at `resolvedAtMs` ("yes" won, market 0.4): uid 0
 * said 0.7 and uid 1 0.5 on each, so their edges are 0.27 and 0.11, rho 5/15, scores 0.09 and
 * 0.036667 (tests/scoring/leaderboard_test.ts works them out).
 */
export async function storeFiveResolvedEvents(storage: Storage, resolvedAtMs = BASE + 50 * HOUR) {
  const events = [1, 2, 3, 4, 5].map((n) => openEvent(`polymarket-${n}`));
  await storePredictions(
    storage,
    events,
    events.flatMap((event) => [
      { event, uid: 0, pYes: 0.7 },
      { event, uid: 1, pYes: 0.5, outcome: "yes" as const },
    ]),
  );
  for (const event of events) await resolve(storage, event, resolvedAtMs, resolvedAtMs);
  return events;
}
