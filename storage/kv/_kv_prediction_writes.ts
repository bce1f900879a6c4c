import { StoreRefusal } from "../store_refusal.ts";
import { type Assignment, holdsLease, type StoredPrediction } from "../assignment_record.ts";
import type { MarkScoredOptions, SubmitOptions, SubmitReceipt } from "../assignment_store.ts";
import type { StoredEvent } from "../event_record.ts";
import { eventKey } from "./kv_event_store.ts";
import { countUse, nonceKey, takeNonce, takeNonceAlone, usedAlready } from "./_kv_signed_use.ts";
import {
  assignmentKey,
  commitWrites,
  heldKey,
  predictionKey,
  traceChunkKey,
  writeAssignment,
  writePrediction,
} from "./_assignment_keys.ts";

/** Bytes of trace JSON per KV value (the limit is 64 KiB). */
const TRACE_CHUNK_BYTES = 60_000;
/** Largest trace KV stores: one commit carries at most 800 KiB, the prediction included. */
export const MAX_KV_TRACE_BYTES = 640 * 1024;
/** Re-reads after a lost commit (each means another write to the assignment committed). */
const MAX_ATTEMPTS = 50;

function notFound(id: string): StoreRefusal {
  return new StoreRefusal("not_found", `No assignment ${id}`);
}

function notHeld(id: string): StoreRefusal {
  return new StoreRefusal("lease_not_held", `The lease of ${id} is not held by this validator`);
}

/** The trace's JSON in UTF-8 chunks of at most TRACE_CHUNK_BYTES. */
function traceChunks(trace: unknown): Uint8Array[] {
  const bytes = new TextEncoder().encode(JSON.stringify(trace ?? null));
  if (bytes.length > MAX_KV_TRACE_BYTES) {
    throw new StoreRefusal("payload_too_large", `Reasoning trace is larger than ${MAX_KV_TRACE_BYTES} bytes`);
  }
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += TRACE_CHUNK_BYTES) {
    chunks.push(bytes.slice(at, at + TRACE_CHUNK_BYTES));
  }
  return chunks;
}

export async function readTrace(kv: Deno.Kv, id: string): Promise<unknown | null> {
  const parts: Uint8Array[] = [];
  for await (const entry of kv.list<Uint8Array>({ prefix: ["pred_trace", id] })) parts.push(entry.value);
  if (parts.length === 0) return null;
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return JSON.parse(new TextDecoder().decode(bytes));
}

/**
 * Whether `validator` may store a prediction for the assignment now: "store", the receipt of a
 * retry, or the refusal to throw.
 */
function admit(
  assignment: Assignment,
  options: SubmitOptions,
  nowMs: number,
): SubmitReceipt | StoreRefusal | "store" {
  const id = assignment.agentPredictionId;
  const holder = assignment.lease?.validatorHotkey === options.validatorHotkey;
  if (assignment.status === "submitted" || assignment.status === "scored") {
    return holder ? { agentPredictionId: id, stored: false } : notHeld(id);
  }
  return holdsLease(assignment, options, nowMs) ? "store" : notHeld(id);
}

function predictionOf(assignment: Assignment, options: SubmitOptions): StoredPrediction {
  return {
    agentPredictionId: assignment.agentPredictionId,
    eventId: assignment.eventId,
    agentVersionId: assignment.agentVersionId,
    round: assignment.round,
    minerHotkey: assignment.minerHotkey,
    minerUid: assignment.minerUid,
    validatorHotkey: options.validatorHotkey,
    predictedAtMs: options.receivedAtMs,
    outcomePricesAtPrediction: assignment.lease?.outcomePrices ?? {},
    reported: options.prediction,
    validation: options.validation,
    scored: null,
  };
}

/**
 * What one submit attempt decided before its commit: "store" (with the event entry to check, when
 * judged against a version), or the answer to give once the use's nonce is taken (a retry's
 * receipt, `eventChanged`, a refusal).
 */
async function decide(
  kv: Deno.Kv,
  id: string,
  entry: Deno.KvEntryMaybe<Assignment>,
  options: SubmitOptions,
  nowMs: number,
): Promise<{ store: Deno.KvEntryMaybe<StoredEvent> | null } | { answer: SubmitReceipt | StoreRefusal }> {
  if (!entry.value) return { answer: notFound(id) };
  const admitted = admit(entry.value, options, nowMs);
  if (admitted !== "store") return { answer: admitted };
  if (options.eventVersion === undefined) return { store: null };
  const event = await kv.get<StoredEvent>(eventKey(entry.value.eventId));
  if (event.value?.version === options.eventVersion) return { store: event };
  return { answer: { agentPredictionId: id, stored: false, eventChanged: true } };
}

/**
 * Checks the lease and commits the assignment's move to submitted, the prediction and the trace
 * chunks in one atomic operation, checked against the assignment entry as read: of racing
 * submissions exactly one commits; the others read again and find it submitted. With a use, its
 * hit is counted first and its nonce taken in that same commit (or alone, when nothing is stored);
 * a nonce found used refuses the submission before anything else is looked at.
 */
export async function submitPrediction(
  kv: Deno.Kv,
  id: string,
  { use, ...options }: SubmitOptions & { now: () => number },
): Promise<SubmitReceipt> {
  const chunks = traceChunks(options.trace);
  const started = use ? await countUse(kv, use, options.now) : null;
  if (started && "refused" in started) {
    return { agentPredictionId: id, stored: false, useRefused: started.refused };
  }
  const counted = started?.counted;
  const keys = [assignmentKey(id), ...(counted ? [nonceKey(counted.use.hotkey, counted.use.nonce)] : [])];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [entry, nonce] = await kv.getMany<unknown[]>(keys) as [
      Deno.KvEntryMaybe<Assignment>,
      Deno.KvEntryMaybe<number> | undefined,
    ];
    const nowMs = options.now();
    const refused = counted && nonce ? usedAlready(counted, nonce, nowMs) : null;
    if (refused) return { agentPredictionId: id, stored: false, useRefused: refused };
    const decided = await decide(kv, id, entry, options, nowMs);
    if ("answer" in decided) {
      if (counted && nonce && !await takeNonceAlone(kv, counted, nonce, nowMs)) continue;
      if (decided.answer instanceof StoreRefusal) throw decided.answer;
      return decided.answer;
    }
    const assignment = entry.value!;
    const prediction = predictionOf(assignment, options);
    const commit = await commitWrites(kv, (op) => {
      op.check(entry);
      if (decided.store) op.check(decided.store);
      if (counted && nonce) takeNonce(op, nonce, counted.use.ttlMs, nowMs);
      writeAssignment(op, assignment, { ...assignment, status: "submitted" });
      op.delete(heldKey(options.validatorHotkey, id));
      writePrediction(op, prediction);
      chunks.forEach((chunk, index) => op.set(traceChunkKey(id, index), chunk));
    });
    if (commit.ok) return { agentPredictionId: id, stored: true };
  }
  throw new StoreRefusal("conflict", `Cannot submit ${id}: the assignment is too contended`);
}

export async function markPredictionScored(
  kv: Deno.Kv,
  id: string,
  options: MarkScoredOptions,
): Promise<boolean> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [assignment, prediction] = await kv.getMany<[Assignment, StoredPrediction]>([
      assignmentKey(id),
      predictionKey(id),
    ]);
    if (!assignment.value || !prediction.value) throw new StoreRefusal("not_found", `No prediction ${id}`);
    if (prediction.value.scored || assignment.value.status !== "submitted") return false;
    const before = assignment.value;
    const { scoredAtMs, resolvedAtMs, resolution } = options;
    const scored: StoredPrediction = {
      ...prediction.value,
      scored: { scoredAtMs, resolvedAtMs, resolution },
    };
    const commit = await commitWrites(kv, (op) => {
      op.check(assignment, prediction);
      writeAssignment(op, before, { ...before, status: "scored" });
      writePrediction(op, scored);
    });
    if (commit.ok) return true;
  }
  throw new StoreRefusal("conflict", `Cannot mark ${id} scored: the assignment is too contended`);
}
