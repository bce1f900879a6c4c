import assert from "node:assert/strict";
import { encodeSs58 } from "../../actors/kernel/mod.ts";
import { agentPredictionId, type AssignmentTarget } from "../../storage/assignment_record.ts";
import type {
  AssignmentStore,
  Claimed,
  ClaimOptions,
  SubmitOptions,
} from "../../storage/assignment_store.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { Storage } from "../../storage/storage.ts";
import { eventRecord, putEvents } from "./events.ts";

const HOUR_MS = 3_600_000;

/** Lease options that never refuse and never expire during a test. */
export const LONG_LEASE: ClaimOptions = { leaseMs: 600_000, maxLive: 1_000_000 };

/** A real SS58 address (prefix 42) per index: the public key is the index's bytes, zero padded. */
export function minerHotkey(index: number): string {
  const publicKey = new Uint8Array(32);
  new DataView(publicKey.buffer).setUint32(0, index + 1);
  return encodeSs58(publicKey);
}

export function versionOf(index: number, version = 1): string {
  return `agent-${index}-v${version}`;
}

/** The target of miner `index` (its version `version`, uploaded at `version` ms) on `event`. */
export function targetFor(
  index: number,
  event: EventRecord,
  options: { version?: number; round?: number } = {},
): AssignmentTarget {
  const version = options.version ?? 1;
  return {
    minerHotkey: minerHotkey(index),
    minerUid: index,
    agentVersionId: versionOf(index, version),
    agentUploadedAtMs: version,
    eventId: event.id,
    eventEndsAtMs: Date.parse(event.endDate),
    round: options.round ?? 0,
  };
}

export function idOf(target: AssignmentTarget): string {
  return agentPredictionId({ ...target, round: target.round ?? 0 });
}

/**
 * Stores `events` events (event `e` ends `24 + e` hours from now, on the real clock: the storage's
 * clock decides what has ended) and ensures an assignment for each of `miners` miners on each.
 */
export async function seedQueue(
  storage: Storage,
  shape: { miners: number; events: number },
): Promise<{ events: EventRecord[]; targets: AssignmentTarget[] }> {
  const nowMs = Date.now();
  const events = Array.from(
    { length: shape.events },
    (_, e) => eventRecord(`polymarket-${1000 + e}`, nowMs, { endsInHours: 24 + e }),
  );
  await putEvents(storage, events, nowMs);
  const targets = Array.from({ length: shape.miners }, (_, m) => events.map((event) => targetFor(m, event)))
    .flat();
  const ensured = await storage.assignments.ensure(targets);
  assert.equal(ensured.created, targets.length);
  return { events, targets };
}

/** Claims until none is left (or `limit` claims), one at a time. */
export async function claimAll(
  store: AssignmentStore,
  validator: string,
  limit = Infinity,
): Promise<Claimed[]> {
  const claimed: Claimed[] = [];
  while (claimed.length < limit) {
    const result = await store.claim(validator, LONG_LEASE);
    if (result.kind !== "claimed") break;
    claimed.push(result);
  }
  return claimed;
}

/** A well-formed submission by `validatorHotkey`; `note` marks its trace (and its reported time). */
export function submission(validatorHotkey: string, note = "first"): SubmitOptions {
  return {
    validatorHotkey,
    graceMs: 60_000,
    receivedAtMs: Date.UTC(2026, 10, 21, 6),
    prediction: {
      schemaVersion: "1.0",
      submittedAt: "2026-11-21T05:59:58.000Z",
      predictionType: "binary",
      predictedOutcomeId: "yes",
      confidence: 0.7,
      outcomeProbabilities: { yes: 0.7, no: 0.3 },
      outcomePricesAtPrediction: { yes: 0.99, no: 0.01 },
      executionMetadata: { predictionIsInvalid: false, runtimeMs: 1234 },
    },
    validation: { isValid: true, reasons: [], rawObserved: { prediction: "yes", confidence: "0.7" } },
    trace: { schemaVersion: "1.0", trace: { steps: [{ thought: `reasoning ${note}` }] } },
  };
}

/** Waits on the real clock (the storage's) for `ms`. */
export function waitMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export const HOURS = HOUR_MS;
