/**
 * The prediction submission a validator makes from one agent run (docs/agents.md, "agent_main":
 * the mapping table, and "A failed run"). What the agent returned is submitted as it is, never
 * repaired: the gateway judges validity. A run that failed, or whose result does not have the
 * submission's shape, is submitted as a failed run (`predictionIsInvalid: true`), so that it
 * counts against the miner instead of the lease running out.
 */
import { z } from "zod";
import type { LeasedAssignmentSchema } from "../../routes/validators/validators_api.ts";
import { MAX_TRACE_BYTES, SubmissionSchema } from "../../routes/validators/validators_api.ts";
import { refuseUnstorableText } from "../../routes/http/validation.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { AgentOutcome, RunError } from "./agent_run.ts";

export type LeasedAssignment = z.infer<typeof LeasedAssignmentSchema>;
export type Submission = z.infer<typeof SubmissionSchema>;

/** A submission, and the run's failure when it is one (`predictionIsInvalid: true`). */
export interface Built {
  submission: Submission;
  failure: RunError | null;
}

/** The keys `agent_main` returns (docs/agents.md); anything else about it is the gateway's to judge. */
const AgentResult = z.object({
  predictedOutcomeId: z.string(),
  confidence: z.number().nullable(),
  outcomeProbabilities: z.record(z.string(), z.number().nullable()),
  reasoning: z.unknown().optional(),
});

/** The submission for `outcome`, the run of `assignment`'s agent, at `submittedAt`. */
export function submissionOf(
  assignment: LeasedAssignment,
  outcome: AgentOutcome,
  submittedAt: string,
): Built {
  const at = { submittedAt, runtimeMs: outcome.runtimeMs, sandbox: outcome.sandbox };
  if (!outcome.ok) return failedRun(assignment, outcome.error, at);
  const result = AgentResult.safeParse(outcome.result);
  if (!result.success) {
    const problem = result.error.issues[0]!;
    const field = problem.path.join(".") || "(the result)";
    return failedRun(assignment, { type: "InvalidResult", message: `${field}: ${problem.message}` }, at);
  }
  const { predictedOutcomeId, confidence, outcomeProbabilities, reasoning } = result.data;
  const submission = {
    agentPredictionId: assignment.agentPredictionId,
    prediction: {
      ...common(assignment, submittedAt),
      predictedOutcomeId,
      confidence,
      outcomeProbabilities,
      executionMetadata: {
        predictionIsInvalid: false,
        runtimeMs: outcome.runtimeMs,
        sandbox: outcome.sandbox,
      },
    },
    reasoningTrace: { schemaVersion: "1.0", trace: { reasoning: reasoning ?? null } },
  };
  const refused = refusal(submission);
  return refused === null
    ? { submission, failure: null }
    : failedRun(assignment, { type: "InvalidResult", message: refused }, at);
}

/** When the run ended, how long it took (ms) and what ran it (`executionMetadata.sandbox`). */
export interface RunFacts {
  submittedAt: string;
  runtimeMs: number;
  sandbox: string;
}

/**
 * A failed run's submission: the event's first outcome, confidence 0, uniform probabilities, and
 * the error (type and message) as the trace.
 */
function failedRun(
  assignment: LeasedAssignment,
  reported: RunError,
  at: RunFacts,
): Built {
  const error = storableError(reported);
  const ids = assignment.event.outcomes.map((outcome) => outcome.outcomeId);
  const submission = {
    agentPredictionId: assignment.agentPredictionId,
    prediction: {
      ...common(assignment, at.submittedAt),
      predictedOutcomeId: ids[0] ?? "",
      confidence: 0,
      outcomeProbabilities: Object.fromEntries(ids.map((id) => [id, 1 / ids.length])),
      executionMetadata: { predictionIsInvalid: true, runtimeMs: at.runtimeMs, sandbox: at.sandbox, error },
    },
    reasoningTrace: { schemaVersion: "1.0", trace: { error } },
  };
  return { submission, failure: error };
}

/** Most code points of an error's type and message in a failed run. */
const MAX_ERROR_TYPE = 100;
const MAX_ERROR_MESSAGE = 1_000;
/**
 * The error as a failed run can carry it: cut to whole code points, NUL and lone surrogates
 * replaced by U+FFFD. Its text is the agent's, so without this a failed run could itself be
 * refused, and the miner's failure never recorded.
 */
export function storableError({ type, message }: RunError): RunError {
  // NUL and lone surrogates are what the gateway cannot store (routes/http/validation.ts `unstorableText`).
  const clean = (text: string, most: number) =>
    Array.from(text.replaceAll("\u0000", "\uFFFD").toWellFormed()).slice(0, most).join("");
  return { type: clean(type, MAX_ERROR_TYPE) || "AgentError", message: clean(message, MAX_ERROR_MESSAGE) };
}

function common(assignment: LeasedAssignment, submittedAt: string) {
  const { outcomes, currentOutcomePrices } = assignment.event;
  return {
    schemaVersion: "1.0",
    submittedAt,
    predictionType: outcomes.length === 2 ? "binary" as const : "categorical" as const,
    outcomePricesAtPrediction: currentOutcomePrices,
  };
}

/** Why the gateway would refuse `submission` (400/413), or null: such a result is a failed run. */
function refusal(submission: Submission): string | null {
  const parsed = SubmissionSchema.safeParse(submission);
  if (!parsed.success) {
    const problem = parsed.error.issues[0]!;
    return `${problem.path.join(".")}: ${problem.message}`;
  }
  const traceBytes = new TextEncoder().encode(JSON.stringify(submission.reasoningTrace)).length;
  if (traceBytes > MAX_TRACE_BYTES) return `the reasoning trace exceeds ${MAX_TRACE_BYTES} bytes`;
  return unstorable(submission);
}

/** The gateway's refusal of text it cannot store (NUL, a lone surrogate), or null. */
function unstorable(submission: Submission): string | null {
  try {
    refuseUnstorableText(submission);
    return null;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const [first] = (error.details?.fields ?? []) as { field: string; problem: string }[];
    return first ? `${first.field}: ${first.problem}` : error.message;
  }
}
