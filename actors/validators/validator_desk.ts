import { base64 } from "@scure/base";
import { LRUCache } from "lru-cache";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { type Clock, isoAt, ServiceError } from "../kernel/mod.ts";
import { type ValidityEvent, validityReasons } from "../scoring/mod.ts";
import type { AgentStore } from "../../storage/agent_store.ts";
import type { AssignmentStore, Claimed, SubmitReceipt } from "../../storage/assignment_store.ts";
import type { PredictionValidation, ReportedPrediction } from "../../storage/assignment_record.ts";
import type { EventRecord } from "../../storage/event_record.ts";
import type { EventStore } from "../../storage/event_store.ts";
import type { ConsumedAndCounted } from "../../storage/nonce_store.ts";
import type { PendingUse } from "./pending_use.ts";

export interface LeaseSettings {
  /** Lease length (`FGW_LEASE_MS`), on the storage's clock. */
  leaseMs: number;
  /** How long after expiry the holder may still submit while nobody re-claimed it (`FGW_LEASE_GRACE_MS`). */
  graceMs: number;
  /** Most live leases per validator hotkey (`FGW_VALIDATOR_MAX_LEASES`). */
  maxLeases: number;
}

export interface ValidatorDeskDeps {
  assignments: AssignmentStore;
  agents: Pick<AgentStore, "get">;
  events: Pick<EventStore, "get">;
  clock: Clock;
  settings: LeaseSettings;
}

/** A leased assignment as `GET /v1/validators/agent-and-event` hands it out (docs/assignments.md). */
export interface LeasedAssignment {
  agentPredictionId: string;
  status: "in_progress";
  leasedAt: string;
  leaseExpiresAt: string;
  /** The event as `/v1/events` renders it, as it was when the lease was taken. */
  event: EventRecord;
  miner: { uid: number; hotkey: string };
  agent: { versionId: string; sha256: string; sizeBytes: number; uploadedAt: string; code: string };
}

export type LeaseReply =
  | { assignment: LeasedAssignment }
  | { assignment: null; reason: "none_available" };

/**
 * A prediction submission, its body already checked (docs/assignments.md, "POST /v1/validators/prediction").
 */
export interface Submission {
  agentPredictionId: string;
  prediction: ReportedPrediction;
  reasoningTrace: { schemaVersion: string; trace: Record<string, unknown> };
}

export interface SubmissionAck {
  ok: true;
  agentPredictionId: string;
  status: "queued";
}

type RenderedAgent = LeasedAssignment["agent"];

/** A submission as the route hands it over: who signed it, when it came, its pending use. */
interface SignedSubmission {
  validatorHotkey: string;
  submission: Submission;
  receivedAtMs: number;
  use: PendingUse | null;
}

/** The refusal of a use a store reported refused (only ever for a use it was handed). */
function refusalOf(use: PendingUse | null, made: ConsumedAndCounted): Error {
  return use?.refusal(made) ?? new Error("A store refused a signed use it was not handed");
}

/** An assignment's event as its submission judges validity against it. */
interface LeasedEvent {
  eventId: string;
  /** The stored version `event` was taken from (absent: the event as just read). */
  version?: number;
  event: ValidityEvent;
}

function ack(agentPredictionId: string): SubmissionAck {
  return { ok: true, agentPredictionId, status: "queued" };
}

/** Leases whose event this desk remembers for their submission (the least recent dropped first). */
const LEASED_KEPT = 100_000;

/** Agents kept rendered (code in base64) by version id, at most this many bytes of code. */
const AGENT_CACHE_BYTES = 64 * 2 ** 20;

/** `Retry-After` of a validator at its live-lease cap: a lease ends at its holder's submission. */
export const LEASE_CAP_RETRY_AFTER_SECONDS = 10;

/**
 * The validator loop's two writes. Leases are arbitrated by the `AssignmentStore` (one atomic
 * step on the storage's clock, any number of instances), so this desk keeps no state: it claims,
 * attaches the agent's code, and on submission checks validity and hands the prediction to the
 * store, which accepts it only from the lease holder and never twice.
 */
export class ValidatorDesk {
  readonly #deps: ValidatorDeskDeps;
  /** An agent version never changes (its id names its code), so a rendered one is reused. */
  readonly #agents = new LRUCache<string, RenderedAgent>({
    maxSize: AGENT_CACHE_BYTES,
    sizeCalculation: (agent) => agent.code.length + 256,
  });

  /**
   * What the submission of each assignment leased here needs of its event: the id (never changes),
   * and the validity inputs of the version handed out, used while that version is still stored.
   * Bounded by a size of one per entry rather than `max`: with `max`, lru-cache allocates and
   * fills its arrays for every entry up front, 11 ms of CPU at every service start for 100,000.
   */
  readonly #leased = new LRUCache<string, LeasedEvent>({ maxSize: LEASED_KEPT, sizeCalculation: () => 1 });

  constructor(deps: ValidatorDeskDeps) {
    this.#deps = deps;
  }

  /**
   * Claims at most one assignment for `validatorHotkey`; 429 `rate_limited` (with `Retry-After`)
   * when it already holds `maxLeases` live leases. With `use`, the request's nonce use and rate hit
   * are made in the claim's own atomic step; a refused use answers its refusal, nothing claimed.
   */
  async lease(validatorHotkey: string, use: PendingUse | null = null): Promise<LeaseReply> {
    const { assignments, settings } = this.#deps;
    const claim = await assignments.claim(validatorHotkey, {
      leaseMs: settings.leaseMs,
      maxLive: settings.maxLeases,
      ...(use ? { use: use.take() } : {}),
    });
    if (claim.kind === "use_refused") throw refusalOf(use, claim.use);
    if (claim.kind === "none") return { assignment: null, reason: "none_available" };
    if (claim.kind === "limit") {
      throw new ServiceError("rate_limited", "This validator holds the most live leases it may hold", {
        retryAfterSeconds: LEASE_CAP_RETRY_AFTER_SECONDS,
        details: { liveLeases: claim.live, maxLeases: settings.maxLeases },
      });
    }
    return { assignment: await this.#render(claim) };
  }

  /**
   * Stores a prediction for the lease `validatorHotkey` holds. The server fixes the scored inputs
   * that depend on time (docs/assignments.md): `predictedAt` is `receivedAtMs`, the prices at prediction
   * are the lease snapshot's (the store takes them from the lease). Validity (docs/scoring.md) is
   * decided here and stored with the prediction: an invalid prediction is kept, not refused.
   * 404 `not_found` for an unknown id, 409 `lease_not_held` for anyone but the holder (or the
   * holder too late); a retry by the validator that submitted gets the same ack. With `use`, the
   * request's nonce use and rate hit are made in the store's submit step (the first one, when the
   * event changed and a second is needed); a refused use answers its refusal, nothing stored. An
   * unknown id answers before any store step, leaving `use` untaken.
   */
  async submit(
    validatorHotkey: string,
    submission: Submission,
    receivedAtMs: number,
    use: PendingUse | null = null,
  ): Promise<SubmissionAck> {
    const id = submission.agentPredictionId;
    const signed = { validatorHotkey, submission, receivedAtMs, use };
    const leased = this.#leased.get(id);
    if (leased) {
      const receipt = await this.#store(signed, leased);
      if (!receipt.eventChanged) return ack(id);
    }
    const eventId = leased?.eventId ?? (await this.#deps.assignments.get(id))?.eventId;
    if (eventId === undefined) throw new ServiceError("not_found", `No assignment ${id}`);
    const stored = await this.#deps.events.get(eventId);
    if (!stored) throw new Error(`Assignment ${id} names event ${eventId}, which is not stored`);
    await this.#store(signed, { eventId, event: stored.event });
    return ack(id);
  }

  /**
   * The store's submit, judged against `leased.event`; with `leased.version`, stored only while the
   * event is still at that version (else `eventChanged`, nothing written). Hands the store the
   * request's use unless an earlier step took it.
   */
  async #store(signed: SignedSubmission, leased: LeasedEvent): Promise<SubmitReceipt> {
    const { validatorHotkey, submission, receivedAtMs, use } = signed;
    const { assignments, settings } = this.#deps;
    const receipt = await assignments.submit(submission.agentPredictionId, {
      validatorHotkey,
      graceMs: settings.graceMs,
      receivedAtMs,
      prediction: submission.prediction,
      validation: predictionValidation(submission.prediction, leased.event, receivedAtMs),
      trace: submission.reasoningTrace,
      ...(leased.version === undefined ? {} : { eventVersion: leased.version }),
      ...(use && !use.taken ? { use: use.take() } : {}),
    });
    if (receipt.useRefused) throw refusalOf(use, receipt.useRefused);
    return receipt;
  }

  async #render(claim: Claimed): Promise<LeasedAssignment> {
    const { assignment, event } = claim;
    this.#leased.set(assignment.agentPredictionId, {
      eventId: assignment.eventId,
      version: claim.eventVersion,
      event: {
        outcomes: event.outcomes.map(({ outcomeId }) => ({ outcomeId })),
        endDate: event.endDate,
        resolution: { resolvedAt: event.resolution.resolvedAt },
      },
    });
    return {
      agentPredictionId: assignment.agentPredictionId,
      status: "in_progress",
      leasedAt: isoAt(assignment.lease.leasedAtMs),
      leaseExpiresAt: isoAt(assignment.lease.expiresAtMs),
      event,
      miner: { uid: assignment.minerUid, hotkey: assignment.minerHotkey },
      agent: await this.#agent(assignment.agentVersionId),
    };
  }

  async #agent(versionId: string): Promise<RenderedAgent> {
    const cached = this.#agents.get(versionId);
    if (cached) return cached;
    const agent = await this.#deps.agents.get(versionId);
    if (!agent) throw new Error(`An assignment names a missing agent version: ${versionId}`);
    const rendered = {
      versionId: agent.versionId,
      sha256: agent.sha256,
      sizeBytes: agent.sizeBytes,
      uploadedAt: isoAt(agent.createdAtMs),
      code: base64.encode(utf8ToBytes(agent.code)),
    };
    this.#agents.set(versionId, rendered);
    return rendered;
  }
}

/**
 * The stored validity of a prediction (`predictionValidation`): every failed rule of
 * docs/scoring.md ("Per prediction") in its order, judged against the event as stored now and the server's
 * receipt time.
 */
export function predictionValidation(
  prediction: ReportedPrediction,
  event: ValidityEvent,
  receivedAtMs: number,
): PredictionValidation {
  const reasons = validityReasons({
    predictionIsInvalid: prediction.executionMetadata.predictionIsInvalid,
    outcomeProbabilities: prediction.outcomeProbabilities,
    predictedOutcomeId: prediction.predictedOutcomeId,
    confidence: prediction.confidence,
    predictedAt: isoAt(receivedAtMs),
  }, event);
  return {
    isValid: reasons.length === 0,
    reasons,
    rawObserved: { prediction: prediction.predictedOutcomeId, confidence: String(prediction.confidence) },
  };
}
