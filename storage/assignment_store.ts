import type {
  Assignment,
  AssignmentTarget,
  Lease,
  PredictionDigest,
  PredictionValidation,
  ReportedPrediction,
  ScoredResolution,
  ScoringPrediction,
  StoredPrediction,
} from "./assignment_record.ts";
import type { EventRecord } from "./event_record.ts";
import type { ConsumedAndCounted, SignedUse } from "./nonce_store.ts";

export interface EnsureOptions {
  /** Targets written per storage round trip (PostgreSQL) or atomic commit (KV); adapters cap it. */
  batchSize?: number;
}

export interface EnsureResult {
  /** Assignments that did not exist. */
  created: number;
  /** Retired assignments named again, available again. */
  revived: number;
  /** Unleased assignments of a miner's older agent versions, retired. */
  superseded: number;
  /** Targets naming an agent version older than the miner's newest one known: ignored. */
  stale: number;
}

/** What `retire` takes out of the queue; each part retires unleased assignments only. */
export interface RetireScope {
  /** Events that left the pool (resolved, out of the band). */
  eventIds?: readonly string[];
  /** Miners no longer eligible (deregistered, unregistered): no claims until `ensure` names them again. */
  minerHotkeys?: readonly string[];
  /** Also every assignment whose event has ended, by the storage's clock. */
  ended?: boolean;
}

export interface ClaimOptions {
  /** Lease length, counted on the storage's clock from the claim. */
  leaseMs: number;
  /** The most live leases `validatorHotkey` may hold; the claim is refused at that count. */
  maxLive: number;
  /**
   * The signed request's nonce use and rate hit, made in the same atomic step as the claim (one
   * commit): when it does not admit the claim (`useAdmits`), nothing is claimed and the result is
   * `use_refused`; otherwise the use commits with the claim, or alone when the result is `none` or
   * `limit`.
   */
  use?: SignedUse;
}

/** A claimed assignment, with the event exactly as it was handed out with the lease. */
export interface Claimed {
  kind: "claimed";
  assignment: Assignment & { lease: Lease };
  event: EventRecord;
  /** The stored version of that event (`StoredEvent.version`). */
  eventVersion: number;
}

export type ClaimResult =
  | Claimed
  /** Nothing claimable now. */
  | { kind: "none" }
  /** The validator already holds `maxLive` live leases (the route answers 429). */
  | { kind: "limit"; live: number }
  /** `ClaimOptions.use` did not admit the claim (a used nonce, or over the rate): nothing claimed. */
  | { kind: "use_refused"; use: ConsumedAndCounted };

/** Who must hold a lease, and how long past its expiry it still counts as held. */
export interface HeldLeaseOptions {
  validatorHotkey: string;
  /** How long after the lease's expiry its holder still holds it while nobody re-claimed it. */
  graceMs: number;
}

export interface SubmitOptions {
  validatorHotkey: string;
  /** When given, the lease must be this claim (not only held by this validator). */
  leaseToken?: string;
  /** How long after the lease's expiry its holder may still submit while nobody re-claimed it. */
  graceMs: number;
  /** The server's receipt time, stored as `predictedAt`. */
  receivedAtMs: number;
  prediction: ReportedPrediction;
  validation: PredictionValidation;
  /**
   * The version of the event `validation` was judged against. When given and the event's stored
   * version is no longer this one, nothing is written and the receipt says `eventChanged` (the
   * caller judges again against the event as stored now). The lease checks come first.
   */
  eventVersion?: number;
  /** The reasoning trace (a JSON value), stored apart and cross-linked by the id. */
  trace: unknown;
  /**
   * The signed request's nonce use and rate hit, made first, in the same atomic step as the
   * submission: when it does not admit it (`useAdmits`), nothing else is checked or written and the
   * receipt carries `useRefused`; otherwise the use commits with whatever the submission does (the
   * prediction; nothing for a retry or `eventChanged`; nothing before a `StoreRefusal`).
   */
  use?: SignedUse;
}

export interface SubmitReceipt {
  agentPredictionId: string;
  /** False when this validator had already submitted it (a retry), or `eventChanged`: nothing was written. */
  stored: boolean;
  /** True when nothing was written because the event is no longer at `SubmitOptions.eventVersion`. */
  eventChanged?: true;
  /** The use as made when `SubmitOptions.use` did not admit the submission: nothing was stored. */
  useRefused?: ConsumedAndCounted;
}

export interface MarkScoredOptions {
  scoredAtMs: number;
  resolvedAtMs: number;
  resolution: ScoredResolution;
}

/** Predictions of one event marked with one resolution. */
export interface ScoredMarks extends MarkScoredOptions {
  eventId: string;
  /** Ids that are not a prediction of `eventId` are left alone. */
  agentPredictionIds: readonly string[];
}

/** Keyset position in `listScored`: the last row of the previous page. */
export interface ScoredCursor {
  resolvedAtMs: number;
  agentPredictionId: string;
}

export interface ListScoredOptions {
  /** The window: only predictions whose event resolved at or after this time. */
  resolvedSinceMs: number;
  limit: number;
  after?: ScoredCursor;
  /** Only predictions made under these (hotkey, uid) registrations. */
  miners?: readonly { hotkey: string; uid: number }[];
}

export interface ListEventOptions {
  limit: number;
  /** The last `agentPredictionId` of the previous page. */
  after?: string;
}

/**
 * Port for assignments (the validators' work queue) and the predictions submitted for them.
 * Assignments are their own aggregate, never fields of the event record. Leases are arbitrated
 * here, atomically, on the storage's clock (PostgreSQL: the server's `clock_timestamp()`; Deno KV:
 * the clock of the host the KV file lives on, see docs/runtime.md), so any number of service
 * instances share one queue. Errors a caller must render are `StoreRefusal`s: `not_found`,
 * `lease_not_held`.
 */
export interface AssignmentStore {
  /**
   * Creates the missing assignments for `targets` (idempotent: the id is a hash of the identity),
   * revives retired ones named again, refreshes a changed event end or uid, and records each
   * miner's newest agent version: the unleased assignments of its older versions are retired and
   * targets naming an older version are ignored. One round trip per batch.
   */
  ensure(targets: readonly AssignmentTarget[], options?: EnsureOptions): Promise<EnsureResult>;
  /** Retires the unleased (available, or lease expired) assignments in `scope`; returns how many. */
  retire(scope: RetireScope): Promise<number>;
  /**
   * Claims at most one assignment for `validatorHotkey` in one atomic step: fresh runs (round > 0)
   * first, then round-robin across miners (the eligible miner with the fewest leases, then by
   * hotkey), soonest-ending event first within a miner. An in_progress assignment whose lease has
   * expired is claimable again, with a new token. Only assignments of a miner's newest version, of
   * an eligible miner, and of a stored, live (not retired), unresolved, not ended event are claimed. The lease expires
   * `leaseMs` after the storage's now; the event is returned as stored at the claim, and its
   * `currentOutcomePrices` are the lease's `outcomePrices`. See docs/assignments.md.
   */
  claim(validatorHotkey: string, options: ClaimOptions): Promise<ClaimResult>;
  /**
   * Stores the prediction and its trace for the assignment, in one atomic step, when the caller
   * holds its lease (until `expiresAtMs + graceMs` while nobody re-claimed it). A retry by the
   * validator that submitted returns `stored: false`. Throws `StoreRefusal` `not_found` (unknown
   * id) or `lease_not_held` (another validator, a former holder, too late, never leased).
   */
  submit(agentPredictionId: string, options: SubmitOptions): Promise<SubmitReceipt>;
  /**
   * The assignment when `options.validatorHotkey` holds its lease now, by the rule `submit` applies
   * (docs/assignments.md, "Submitting"): in progress (not yet submitted), leased by that validator,
   * and the storage's now at most `graceMs` past the lease's expiry (a re-claim makes another
   * validator the holder). Null otherwise, an unknown id included. Only reads.
   */
  heldLease(agentPredictionId: string, options: HeldLeaseOptions): Promise<Assignment | null>;
  /** Records the resolution a submitted prediction was scored against; false when already scored. Throws `not_found` without a prediction. */
  markScored(agentPredictionId: string, options: MarkScoredOptions): Promise<boolean>;
  /**
   * `markScored` of every id of every group (each group one event's predictions, with its own
   * resolution), in as few round trips as the adapter can (PostgreSQL: one transaction, one row
   * per event); returns how many were newly marked. Ids already scored, without a prediction, or
   * of another event are left alone.
   */
  markScoredMany(groups: readonly ScoredMarks[]): Promise<number>;
  get(agentPredictionId: string): Promise<Assignment | null>;
  getPrediction(agentPredictionId: string): Promise<StoredPrediction | null>;
  /** The reasoning trace stored with the prediction, as submitted. */
  getTrace(agentPredictionId: string): Promise<unknown | null>;
  /** Predictions of one event (for scoring), in `agentPredictionId` order. */
  listEventPredictions(eventId: string, options: ListEventOptions): Promise<StoredPrediction[]>;
  /**
   * What the scorer reads of every prediction of `eventIds` (distinct ids; unknown ones have
   * none), in one storage call (PostgreSQL: one query), by `eventId`, then `agentPredictionId`:
   * the scoring job's batch read.
   */
  scoringPredictionsOfEvents(eventIds: readonly string[]): Promise<ScoringPrediction[]>;
  /** Those of `eventIds` (distinct, any order) with a prediction not yet marked scored; one storage call. */
  eventsWithUnscored(eventIds: readonly string[]): Promise<string[]>;
  /**
   * The digests of every prediction of `eventIds` (distinct ids; unknown ones have none), in one
   * storage call (PostgreSQL: one query), by `eventId`, then `agentPredictionId`.
   */
  eventDigests(eventIds: readonly string[]): Promise<PredictionDigest[]>;
  /**
   * The events (distinct ids, any order) with a prediction whose `predictedAtMs` is at or after
   * `sinceMs`: what changed, for caches of the predictions (docs/predictions.md "Freshness"). Kept
   * answerable for at least `RECENT_PREDICTIONS_MS` back.
   */
  eventsPredictedSince(sinceMs: number): Promise<string[]>;
  /** Scored predictions in the window, newest resolution first, then by `agentPredictionId`. */
  listScored(options: ListScoredOptions): Promise<StoredPrediction[]>;
  /** How many live (unexpired, unsubmitted) leases the validator holds now. */
  countLive(validatorHotkey: string): Promise<number>;
  /** The highest round of the event's assignments, or null when it has none (a fresh run takes the next). */
  latestRound(eventId: string): Promise<number | null>;
}
