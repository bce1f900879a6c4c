import { type Assignment, RECENT_PREDICTIONS_MS, type StoredPrediction } from "../assignment_record.ts";
import { commitAtomic } from "./_atomic_retry.ts";

/**
 * A miner's record: its newest agent version, eligibility, and how many leases it has had (the
 * round-robin serves the fewest first). Stored at `minerKey` and, as a copy, at
 * `turnKey(leasedCount, hotkey)`, the index claims walk in turn order; both change together.
 */
export interface MinerEntry {
  hotkey: string;
  agentVersionId: string;
  agentUploadedAtMs: number;
  eligible: boolean;
  leasedCount: number;
}

/** An assignment that is available or in progress, in the queue indexes. */
export interface QueueEntry {
  agentPredictionId: string;
  minerHotkey: string;
  agentVersionId: string;
  eventId: string;
  round: number;
  eventEndsAtMs: number;
  /** 0 when available; the lease's expiry when in progress. */
  claimableAtMs: number;
}

export function assignmentKey(id: string): Deno.KvKey {
  return ["asg", id];
}

/** A miner's available assignments, soonest-ending event first. */
export function availableKey(hotkey: string, endsAtMs: number, id: string): Deno.KvKey {
  return ["asg_available", hotkey, endsAtMs, id];
}

/** A miner's in-progress assignments by lease expiry (expired ones are claimable again). */
export function leasedKey(hotkey: string, expiresAtMs: number, id: string): Deno.KvKey {
  return ["asg_leased", hotkey, expiresAtMs, id];
}

/** Every available assignment by event end (is anything claimable at all?). */
export function openKey(endsAtMs: number, id: string): Deno.KvKey {
  return ["asg_open", endsAtMs, id];
}

/** Every in-progress assignment by lease expiry (has a lease expired?). */
export function expiryKey(expiresAtMs: number, id: string): Deno.KvKey {
  return ["asg_expiry", expiresAtMs, id];
}

/** Fresh runs (round > 0) in the queue, soonest-ending first. */
export function priorityKey(endsAtMs: number, id: string): Deno.KvKey {
  return ["asg_priority", endsAtMs, id];
}

export function minerKey(hotkey: string): Deno.KvKey {
  return ["asg_miner", hotkey];
}

export function turnKey(leasedCount: number, hotkey: string): Deno.KvKey {
  return ["asg_turn", leasedCount, hotkey];
}

export function heldKey(validator: string, id: string): Deno.KvKey {
  return ["asg_held", validator, id];
}

/** Bumped by every claim of a validator: its claims check it, so they commit one at a time. */
export function gateKey(validator: string): Deno.KvKey {
  return ["asg_gate", validator];
}

export function byEventKey(eventId: string, round: number, id: string): Deno.KvKey {
  return ["asg_event", eventId, round, id];
}

export function predictionKey(id: string): Deno.KvKey {
  return ["pred", id];
}

/** A copy of the prediction, by event (for scoring). */
export function eventPredictionKey(eventId: string, id: string): Deno.KvKey {
  return ["pred_event", eventId, id];
}

/** A copy of a scored prediction, newest resolution first (negated), then by id. */
export function scoredKey(resolvedAtMs: number, id: string): Deno.KvKey {
  return ["pred_scored", -resolvedAtMs, id];
}

export function traceChunkKey(id: string, index: number): Deno.KvKey {
  return ["pred_trace", id, index];
}

/** True while a claim may take it now or once its lease expires. */
export function isQueued(assignment: Assignment): boolean {
  return assignment.status === "available" || assignment.status === "in_progress";
}

/** Available, or in progress with a lease that has expired by `nowMs`. */
export function isClaimable(assignment: Assignment, nowMs: number): boolean {
  if (assignment.status === "available") return true;
  return assignment.status === "in_progress" && (assignment.lease?.expiresAtMs ?? 0) <= nowMs;
}

function queueEntry(assignment: Assignment): QueueEntry {
  return {
    agentPredictionId: assignment.agentPredictionId,
    minerHotkey: assignment.minerHotkey,
    agentVersionId: assignment.agentVersionId,
    eventId: assignment.eventId,
    round: assignment.round,
    eventEndsAtMs: assignment.eventEndsAtMs,
    claimableAtMs: assignment.status === "in_progress" ? assignment.lease?.expiresAtMs ?? 0 : 0,
  };
}

/** The queue index keys an assignment in `assignment`'s state is listed under. */
function queueKeys(assignment: Assignment): Deno.KvKey[] {
  const id = assignment.agentPredictionId;
  const keys: Deno.KvKey[] = [];
  if (assignment.status === "available") {
    keys.push(availableKey(assignment.minerHotkey, assignment.eventEndsAtMs, id));
    keys.push(openKey(assignment.eventEndsAtMs, id));
  }
  if (assignment.status === "in_progress") {
    const expiresAtMs = assignment.lease?.expiresAtMs ?? 0;
    keys.push(leasedKey(assignment.minerHotkey, expiresAtMs, id), expiryKey(expiresAtMs, id));
  }
  if (isQueued(assignment) && assignment.round > 0) keys.push(priorityKey(assignment.eventEndsAtMs, id));
  return keys;
}

/** Adds to `op` the writes of an assignment's change from `before` (null: new) to `after`, indexes included. */
export function writeAssignment(
  op: Deno.AtomicOperation,
  before: Assignment | null,
  after: Assignment,
): void {
  const id = after.agentPredictionId;
  if (before) { for (const key of queueKeys(before)) op.delete(key); }
  const entry = queueEntry(after);
  for (const key of queueKeys(after)) op.set(key, entry);
  if (!before) op.set(byEventKey(after.eventId, after.round, id), null);
  op.set(assignmentKey(id), after);
}

/** Adds to `op` the writes of a miner record (both copies); `previousCount` is the turn it leaves. */
export function writeMiner(op: Deno.AtomicOperation, miner: MinerEntry, previousCount: number | null): void {
  if (previousCount !== null && previousCount !== miner.leasedCount) {
    op.delete(turnKey(previousCount, miner.hotkey));
  }
  op.set(minerKey(miner.hotkey), miner).set(turnKey(miner.leasedCount, miner.hotkey), miner);
}

/** Adds to `op` the writes of a prediction (and its by-event copy, and its scored copy once scored). */
/** The recent-predictions index: event id by (predictedAtMs, id), expiring after `RECENT_PREDICTIONS_MS`. */
export function recentPredictionKey(predictedAtMs: number, id: string): Deno.KvKey {
  return ["pred_recent", predictedAtMs, id];
}

export function writePrediction(op: Deno.AtomicOperation, prediction: StoredPrediction): void {
  const id = prediction.agentPredictionId;
  op.set(predictionKey(id), prediction).set(eventPredictionKey(prediction.eventId, id), prediction);
  // Expiry counts from this write (a rewrite when scored only extends it), never before predictedAt + the period.
  op.set(recentPredictionKey(prediction.predictedAtMs, id), prediction.eventId, {
    expireIn: RECENT_PREDICTIONS_MS,
  });
  if (prediction.scored) op.set(scoredKey(prediction.scored.resolvedAtMs, id), prediction);
}

/** Reads up to 10 keys per call (the KV limit), in order. */
export async function getAll<T>(kv: Deno.Kv, keys: readonly Deno.KvKey[]): Promise<Deno.KvEntryMaybe<T>[]> {
  const out: Deno.KvEntryMaybe<T>[] = [];
  for (let start = 0; start < keys.length; start += 10) {
    out.push(...await kv.getMany<T[]>(keys.slice(start, start + 10)));
  }
  return out;
}

/** Commits the checks and writes `apply` adds, rebuilt for each attempt of `commitAtomic`. */
export function commitWrites(
  kv: Deno.Kv,
  apply: (op: Deno.AtomicOperation) => void,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  return commitAtomic(() => {
    const op = kv.atomic();
    apply(op);
    return op;
  });
}
