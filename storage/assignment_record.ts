import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { ResolutionStatus } from "./event_record.ts";

/**
 * available → in_progress (claimed) → submitted → scored. `retired`: taken out of the queue
 * unleased (superseded agent version, event out of the pool, miner no longer eligible); `ensure`
 * makes it available again when it is named again.
 */
export type AssignmentStatus = "available" | "in_progress" | "submitted" | "scored" | "retired";

/** What makes an assignment: round 0 is the ordinary run, a customer's fresh run the next round. */
export interface AssignmentIdentity {
  agentVersionId: string;
  eventId: string;
  round: number;
}

/**
 * The opaque id of an assignment (and of its prediction): `ap_` and the first 128 bits, in hex, of
 * SHA-256 over the identity. Deterministic, so every instance names the same assignment alike and
 * creating it twice is a no-op.
 */
export function agentPredictionId(identity: AssignmentIdentity): string {
  const text = `${identity.agentVersionId}\u0000${identity.eventId}\u0000${identity.round}`;
  return `ap_${bytesToHex(sha256(utf8ToBytes(text))).slice(0, 32)}`;
}

/** One (miner's latest agent version, event in the assignment pool) pair that should be worked on. */
export interface AssignmentTarget {
  minerHotkey: string;
  minerUid: number;
  agentVersionId: string;
  /** When the version was uploaded: a miner's newest version (then greatest id) supersedes the others. */
  agentUploadedAtMs: number;
  eventId: string;
  /** The event's endDate: an ended event's assignments are never claimed. */
  eventEndsAtMs: number;
  /** 0 (default): the ordinary run; > 0: a customer's fresh run, claimed before ordinary work. */
  round?: number;
}

/** `targets` with each assignment named once (the last mention wins), in first-mention order. */
export function distinctTargets(targets: readonly AssignmentTarget[]): AssignmentTarget[] {
  const byId = new Map<string, AssignmentTarget>();
  for (const target of targets) byId.set(agentPredictionId({ ...target, round: target.round ?? 0 }), target);
  return [...byId.values()];
}

/** One claim of an assignment by a validator. */
export interface Lease {
  validatorHotkey: string;
  /** New for every claim (a re-claim of an expired lease gets a new one). */
  token: string;
  /** On the storage's clock. */
  leasedAtMs: number;
  /** On the storage's clock: the lease is live while the storage's now is before it. */
  expiresAtMs: number;
  /** `currentOutcomePrices` of the event as handed out with this lease: the prediction's scored prices. */
  outcomePrices: Record<string, number>;
}

/**
 * True when `validatorHotkey` holds the assignment's lease at `nowMs` (the storage's clock): in
 * progress, leased by it (by that claim, with `leaseToken`), and at most `graceMs` past the lease's
 * expiry. The rule of a submission and of a validator completion (docs/assignments.md).
 */
export function holdsLease(
  assignment: Assignment,
  options: { validatorHotkey: string; graceMs: number; leaseToken?: string | undefined },
  nowMs: number,
): boolean {
  const { lease } = assignment;
  if (assignment.status !== "in_progress" || !lease || lease.validatorHotkey !== options.validatorHotkey) {
    return false;
  }
  if (options.leaseToken !== undefined && options.leaseToken !== lease.token) return false;
  return nowMs <= lease.expiresAtMs + options.graceMs;
}

export interface Assignment extends AssignmentIdentity {
  agentPredictionId: string;
  minerHotkey: string;
  minerUid: number;
  eventEndsAtMs: number;
  status: AssignmentStatus;
  /** The current or last lease (kept after submission: its validator is the submitter); null before any. */
  lease: Lease | null;
  /** How many times it was claimed (re-claims of expired leases included). */
  leaseCount: number;
}

/** The `prediction` object of a submission, stored as the validator reported it (docs/assignments.md). */
export interface ReportedPrediction {
  schemaVersion: string;
  submittedAt: string;
  predictionType: string;
  predictedOutcomeId: string;
  /** Null when the reported value was not a number. */
  confidence: number | null;
  outcomeProbabilities: Record<string, number | null>;
  outcomePricesAtPrediction: Record<string, number | null>;
  executionMetadata: { predictionIsInvalid: boolean; [key: string]: unknown };
}

/** The validity of a prediction as checked on receipt (`predictionValidation`, docs/assignments.md). */
export interface PredictionValidation {
  isValid: boolean;
  reasons: string[];
  rawObserved: { prediction: string; confidence: string } | null;
}

/** The resolution a prediction was scored against. */
export interface ScoredResolution {
  resolutionStatus: ResolutionStatus;
  resolvedOutcomeId: string | null;
  finalOutcomePrices: Record<string, number> | null;
}

/** A submitted prediction; its reasoning trace is stored apart under the same id. */
export interface StoredPrediction extends AssignmentIdentity {
  agentPredictionId: string;
  minerHotkey: string;
  minerUid: number;
  /** The validator that held the lease and submitted. */
  validatorHotkey: string;
  /** The server's receipt time (never the submitter's clock). */
  predictedAtMs: number;
  /** The prices of the event snapshot handed out with the lease (never the submitter's). */
  outcomePricesAtPrediction: Record<string, number>;
  reported: ReportedPrediction;
  validation: PredictionValidation;
  /** Set once, by `markScored`. */
  scored: { scoredAtMs: number; resolvedAtMs: number; resolution: ScoredResolution } | null;
}

/**
 * What the scorer reads of a stored prediction (the input fields of docs/scoring.md, "`deno task score`"),
 * with its place: the scoring job's batch read, a projection of `StoredPrediction` (`scoringPredictionOf`).
 */
export interface ScoringPrediction {
  agentPredictionId: string;
  eventId: string;
  minerHotkey: string;
  minerUid: number;
  predictedAtMs: number;
  predictedOutcomeId: string;
  /** Null unless the reported value is a number. */
  confidence: number | null;
  outcomeProbabilities: Record<string, number | null>;
  /** The lease's prices (the server's), never the reported ones. */
  outcomePricesAtPrediction: Record<string, number>;
  /** The agent's own flag (`executionMetadata.predictionIsInvalid` is true), never the stored verdict. */
  predictionIsInvalid: boolean;
}

/** The scorer's view of a stored prediction. */
export function scoringPredictionOf(stored: StoredPrediction): ScoringPrediction {
  const { reported } = stored;
  return {
    agentPredictionId: stored.agentPredictionId,
    eventId: stored.eventId,
    minerHotkey: stored.minerHotkey,
    minerUid: stored.minerUid,
    predictedAtMs: stored.predictedAtMs,
    predictedOutcomeId: reported.predictedOutcomeId,
    confidence: typeof reported.confidence === "number" ? reported.confidence : null,
    outcomeProbabilities: reported.outcomeProbabilities,
    outcomePricesAtPrediction: stored.outcomePricesAtPrediction,
    predictionIsInvalid: reported.executionMetadata.predictionIsInvalid === true,
  };
}

/**
 * What the customer consensus reads of a stored prediction (a projection of `StoredPrediction`):
 * who made it, when, its reported probabilities and the validity verdict stored at submission.
 */
/** How far back `AssignmentStore.eventsPredictedSince` is kept answerable (one hour). */
export const RECENT_PREDICTIONS_MS = 3_600_000;

export interface PredictionDigest {
  agentPredictionId: string;
  eventId: string;
  minerHotkey: string;
  minerUid: number;
  /** The server's receipt time. */
  predictedAtMs: number;
  outcomeProbabilities: Record<string, number | null>;
  /** `validation.isValid`. */
  isValid: boolean;
  /**
   * `validation.reasons` is exactly `late_prediction`: invalid only for being late, so valid if the
   * event's deadline has moved past it since (its `endDate` extended), as the scorer judges it.
   */
  lateOnly: boolean;
}

/** The digest of a stored prediction. */
export function digestOf(prediction: StoredPrediction): PredictionDigest {
  return {
    agentPredictionId: prediction.agentPredictionId,
    eventId: prediction.eventId,
    minerHotkey: prediction.minerHotkey,
    minerUid: prediction.minerUid,
    predictedAtMs: prediction.predictedAtMs,
    outcomeProbabilities: prediction.reported.outcomeProbabilities,
    isValid: prediction.validation.isValid,
    lateOnly: isLateOnly(prediction.validation.reasons),
  };
}

/** True when `reasons` is exactly `["late_prediction"]` (rule 7 of docs/scoring.md alone). */
export function isLateOnly(reasons: readonly string[]): boolean {
  return reasons.length === 1 && reasons[0] === "late_prediction";
}
