import type { Sql } from "postgres";
import type {
  Assignment,
  AssignmentStatus,
  Lease,
  PredictionDigest,
  PredictionValidation,
  ReportedPrediction,
  ScoredResolution,
  ScoringPrediction,
  StoredPrediction,
} from "../assignment_record.ts";

/** BIGINT columns arrive as bigint from a query, as number from `to_jsonb` (the claim function). */
type Int = number | bigint;

/** An `assignments` row, as selected or as `to_jsonb(row)`. */
export interface AssignmentRow {
  id: string;
  agent_version_id: string;
  event_id: string;
  round: number;
  miner_hotkey: string;
  miner_uid: number;
  event_ends_at_ms: Int;
  status: AssignmentStatus;
  lease_holder: string | null;
  lease_token: string | null;
  leased_at_ms: Int | null;
  lease_expires_at_ms: Int | null;
  lease_prices: Record<string, number> | null;
  lease_count: number;
}

export const ASSIGNMENT_COLUMNS = [
  "id",
  "agent_version_id",
  "event_id",
  "round",
  "miner_hotkey",
  "miner_uid",
  "event_ends_at_ms",
  "status",
  "lease_holder",
  "lease_token",
  "leased_at_ms",
  "lease_expires_at_ms",
  "lease_prices",
  "lease_count",
] as const;

function toLease(row: AssignmentRow): Lease | null {
  if (row.lease_holder === null || row.lease_token === null) return null;
  return {
    validatorHotkey: row.lease_holder,
    token: row.lease_token,
    leasedAtMs: Number(row.leased_at_ms),
    expiresAtMs: Number(row.lease_expires_at_ms),
    outcomePrices: row.lease_prices ?? {},
  };
}

export function toAssignment(row: AssignmentRow): Assignment {
  return {
    agentPredictionId: row.id,
    agentVersionId: row.agent_version_id,
    eventId: row.event_id,
    round: row.round,
    minerHotkey: row.miner_hotkey,
    minerUid: row.miner_uid,
    eventEndsAtMs: Number(row.event_ends_at_ms),
    status: row.status,
    lease: toLease(row),
    leaseCount: row.lease_count,
  };
}

/** A `predictions` row. */
export interface PredictionRow {
  agent_prediction_id: string;
  event_id: string;
  agent_version_id: string;
  round: number;
  miner_hotkey: string;
  miner_uid: number;
  validator_hotkey: string;
  predicted_at_ms: bigint;
  outcome_prices_at_prediction: Record<string, number>;
  reported: ReportedPrediction;
  validation: PredictionValidation;
  scored_at_ms: bigint | null;
  resolved_at_ms: bigint | null;
  resolution: ScoredResolution | null;
}

export function toPrediction(row: PredictionRow): StoredPrediction {
  const scored = row.scored_at_ms === null || row.resolution === null ? null : {
    scoredAtMs: Number(row.scored_at_ms),
    resolvedAtMs: Number(row.resolved_at_ms),
    resolution: row.resolution,
  };
  return {
    agentPredictionId: row.agent_prediction_id,
    eventId: row.event_id,
    agentVersionId: row.agent_version_id,
    round: row.round,
    minerHotkey: row.miner_hotkey,
    minerUid: row.miner_uid,
    validatorHotkey: row.validator_hotkey,
    predictedAtMs: Number(row.predicted_at_ms),
    outcomePricesAtPrediction: row.outcome_prices_at_prediction,
    reported: row.reported,
    validation: row.validation,
    scored,
  };
}

/** What `scoringPredictionsOfEvents` aggregates of a `predictions` row, as a JSON array. */
export type ScoringTuple = [
  agentPredictionId: string,
  eventId: string,
  minerHotkey: string,
  minerUid: number,
  predictedAtMs: number,
  predictedOutcomeId: string,
  confidence: number | null,
  outcomeProbabilities: Record<string, number | null>,
  outcomePricesAtPrediction: Record<string, number>,
  predictionIsInvalid: boolean,
];

export function toScoringPrediction(tuple: ScoringTuple): ScoringPrediction {
  const [agentPredictionId, eventId, minerHotkey, minerUid, predictedAtMs, predictedOutcomeId, confidence] =
    tuple;
  return {
    agentPredictionId,
    eventId,
    minerHotkey,
    minerUid,
    predictedAtMs,
    predictedOutcomeId,
    confidence,
    outcomeProbabilities: tuple[7],
    outcomePricesAtPrediction: tuple[8],
    predictionIsInvalid: tuple[9],
  };
}

/** The columns `eventDigests` selects of a `predictions` row. */
export interface DigestRow {
  event_id: string;
  agent_prediction_id: string;
  miner_hotkey: string;
  miner_uid: number;
  predicted_at_ms: bigint;
  outcome_probabilities: Record<string, number | null>;
  is_valid: boolean;
  late_only: boolean;
}

export function toDigest(row: DigestRow): PredictionDigest {
  return {
    agentPredictionId: row.agent_prediction_id,
    eventId: row.event_id,
    minerHotkey: row.miner_hotkey,
    minerUid: row.miner_uid,
    predictedAtMs: Number(row.predicted_at_ms),
    outcomeProbabilities: row.outcome_probabilities,
    isValid: row.is_valid,
    lateOnly: row.late_only,
  };
}

/** A JSON parameter for a JSONB column (postgres.js types its argument narrowly). */
export function jsonParam(sql: Sql, value: unknown) {
  return sql.json(value as Parameters<Sql["json"]>[0]);
}
