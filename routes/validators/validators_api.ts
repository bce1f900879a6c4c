import { z } from "zod";
import { defineRoute, jsonBody, jsonResponse } from "../http/openapi.ts";
import { shallowJson } from "../http/validation.ts";
import type { SignatureAccess } from "../middleware/signature_auth.ts";
import { EventSchema, ValidatorSignatureHeaders } from "../http/shared_schemas.ts";

const instant = z.string().meta({
  description: "ISO 8601 UTC with milliseconds",
  example: "2026-11-21T06:00:00.000Z",
});

/** Largest reasoning trace, in UTF-8 bytes of its JSON (else 413). */
export const MAX_TRACE_BYTES = 256 * 1024;
/**
 * Deepest nesting of objects and arrays in a submission's free-form JSON (`executionMetadata`, the
 * trace), else 400: PostgreSQL's `jsonb` refuses documents nested some thousands of levels deep.
 */
export const MAX_JSON_DEPTH = 64;
/** Largest submission body: the trace plus room for the prediction. */
export const MAX_SUBMISSION_BYTES = MAX_TRACE_BYTES + 64 * 1024;

export const LeasedAssignmentSchema = z.object({
  agentPredictionId: z.string().meta({ description: "Names the assignment in the submission." }),
  status: z.literal("in_progress"),
  leasedAt: instant,
  leaseExpiresAt: instant.meta({
    description: "Submit before this (or within `FGW_LEASE_GRACE_MS` after it, unless re-claimed).",
  }),
  event: EventSchema,
  miner: z.object({ uid: z.number().int(), hotkey: z.string() }),
  agent: z.object({
    versionId: z.string(),
    sha256: z.string().meta({ description: "Lowercase hex SHA-256 of the code's UTF-8 bytes." }),
    sizeBytes: z.number().int(),
    uploadedAt: instant,
    code: z.string().meta({ description: "Base64 of the Python source (UTF-8)." }),
  }),
}).meta({ id: "LeasedAssignment" });

export const LeaseReplySchema = z.union([
  z.object({ assignment: LeasedAssignmentSchema }),
  z.object({ assignment: z.null(), reason: z.literal("none_available") }),
]).meta({
  id: "LeaseReply",
  description: "A leased assignment, or null with `reason` when none is available.",
});

const score = z.number().nullable().meta({ description: "A number; anything else outside 0..1 is invalid." });
const byOutcome = z.record(z.string(), score);

/**
 * `prediction` of a submission (docs/assignments.md): kept as reported; validity is judged, never refused.
 */
export const ReportedPredictionSchema = z.strictObject({
  schemaVersion: z.string().regex(/^1(\.[0-9]+){0,2}$/, "Expected a 1.x schema version").meta({
    example: "1.0",
  }),
  submittedAt: z.iso.datetime({ offset: true }).meta({
    description: "The validator's clock; stored as reported.",
  }),
  predictionType: z.enum(["binary", "categorical"]).meta({ description: "Informational." }),
  predictedOutcomeId: z.string(),
  confidence: score,
  outcomeProbabilities: byOutcome,
  outcomePricesAtPrediction: byOutcome.meta({
    description: "Stored as reported; the scored prices are the lease snapshot's.",
  }),
  executionMetadata: shallowJson(
    z.looseObject({
      predictionIsInvalid: z.boolean().meta({ description: "True when the agent run failed." }),
    }),
    MAX_JSON_DEPTH,
  ).meta({ description: `Free-form beside \`predictionIsInvalid\`; at most ${MAX_JSON_DEPTH} levels deep.` }),
});

export const SubmissionSchema = z.object({
  agentPredictionId: z.string().min(1).max(128),
  prediction: ReportedPredictionSchema,
  reasoningTrace: z.strictObject({
    schemaVersion: z.string().min(1).max(32),
    trace: shallowJson(z.record(z.string(), z.unknown()), MAX_JSON_DEPTH),
  }).meta({
    description: `At most ${MAX_TRACE_BYTES} bytes of JSON (else 413) and ${MAX_JSON_DEPTH} levels deep ` +
      "(else 400); stored apart.",
  }),
});

export const SubmissionAckSchema = z.object({
  ok: z.literal(true),
  agentPredictionId: z.string(),
  status: z.literal("queued"),
}).meta({ id: "SubmissionAck" });

/** `GET /v1/validators/agent-and-event`. */
export function leaseRoute(signature: SignatureAccess) {
  return defineRoute({
    method: "get",
    path: "/agent-and-event",
    tags: ["validators"],
    summary: "Lease one assignment (a miner's agent and an event)",
    description: "Claims at most one assignment atomically, for `FGW_LEASE_MS`; expired leases are " +
      "reclaimed in the same step. 429 when the validator holds `FGW_VALIDATOR_MAX_LEASES` live leases. " +
      "See docs/assignments.md.",
    access: { signature },
    request: { headers: ValidatorSignatureHeaders },
    responses: { 200: jsonResponse(LeaseReplySchema, "The lease, or none available.") },
  });
}

/** `POST /v1/validators/prediction`. */
export function submitRoute(signature: SignatureAccess) {
  return defineRoute({
    method: "post",
    path: "/prediction",
    tags: ["validators"],
    summary: "Submit the prediction of a leased assignment",
    description: "Update-only and idempotent by state: only the lease holder submits; a retry gets the " +
      "same ack. The server fixes `predictedAt` (receipt time) and the prices at prediction (the lease " +
      "snapshot's). An invalid prediction is stored with its reasons. See docs/assignments.md.",
    access: { signature },
    errors: ["not_found", "lease_not_held"],
    maxBodyBytes: MAX_SUBMISSION_BYTES,
    request: { headers: ValidatorSignatureHeaders, body: jsonBody(SubmissionSchema) },
    responses: { 200: jsonResponse(SubmissionAckSchema, "Stored (or stored before, for a retry).") },
  });
}
