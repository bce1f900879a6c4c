/**
 * One turn of a validator's loop (`deno task validate`, scripts/validate/validate.ts): lease an assignment
 * (`GET /v1/validators/agent-and-event`), check the agent's digest, run its `agent_main` on the
 * event in the sandbox with its LLM relay (`relayed_run.ts`), and submit the result or a failed run
 * (`validator_submission.ts`, `POST /v1/validators/prediction`), every request signed as the validator.
 */
import { bytesToHex } from "@noble/hashes/utils.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64 } from "@scure/base";
import { setTimeout as delay } from "node:timers/promises";
import { parseRetryAfter } from "../../actors/kernel/mod.ts";
import { LeaseReplySchema, SubmissionAckSchema } from "../../routes/validators/validators_api.ts";
import { freshProgress, relayedRun, type RelayedRunDeps, type RunProgress } from "./relayed_run.ts";
import { type LeasedAssignment, submissionOf } from "./validator_submission.ts";
import { gatewayUrl, type SignedCall, signedFetch } from "./signed_fetch.ts";

const LEASE_PATH = "/v1/validators/agent-and-event";
const SUBMIT_PATH = "/v1/validators/prediction";
/** Least time a run gets, however little of the lease is left. */
const LEAST_RUN_MS = 1_000;
/** Attempts of a submission (it is idempotent for its validator: a retry gets the same ack). */
const SUBMIT_ATTEMPTS = 3;
/** Longest pause between two attempts, whatever `Retry-After` says. */
const MAX_PAUSE_MS = 10_000;

/** The gateway, the validator's key and clock, how runs are started and the relay's limits. */
export type ValidateDeps = RelayedRunDeps;

/** A run submitted (a failed run included). */
export interface Submitted {
  outcome: "submitted";
  agentPredictionId: string;
  eventId: string;
  minerHotkey: string;
  /** The run's error when it failed (submitted with `predictionIsInvalid: true`). */
  failure: { type: string; message: string } | null;
  runtimeMs: number;
  /** The run's LLM calls the gateway charged, and their cost (micro-credits, decimal). */
  llmCalls: number;
  llmCostMicro: string;
  /** What isolated the run: its starter's name (as submitted in `executionMetadata.sandbox`). */
  sandbox: string;
}

/** What one turn did. */
export type TurnResult = { outcome: "none_available" } | Submitted;

/** An answer of the gateway other than the one expected: its status and error body. */
export class GatewayAnswerError extends Error {
  constructor(readonly status: number, readonly body: string, readonly retryAfter: string | null = null) {
    super(`the gateway answered ${status}: ${body.slice(0, 500)}`);
    this.name = "GatewayAnswerError";
  }
}

/** One turn: lease, run, submit (see the module comment). Throws when the gateway refuses a request. */
export async function validateOnce(deps: ValidateDeps): Promise<TurnResult> {
  const assignment = await leaseAssignment(deps, deps.run.signal);
  return assignment === null ? { outcome: "none_available" } : await runLeased(deps, assignment);
}

/** Leases an assignment; null when none is available. `signal` abandons the request. */
export async function leaseAssignment(
  deps: ValidateDeps,
  signal?: AbortSignal,
): Promise<LeasedAssignment | null> {
  const lease = LeaseReplySchema.parse(
    await signedJson(deps, { method: "GET", path: LEASE_PATH, ...(signal ? { signal } : {}) }),
  );
  return lease.assignment;
}

/**
 * Runs a leased assignment's agent and submits what it gave; `progress` says how far it got.
 * Throws when the digest does not match (never run), the run could not be made or was aborted
 * (nothing submitted), or the gateway refused the submission.
 */
export async function runLeased(
  deps: ValidateDeps,
  assignment: LeasedAssignment,
  progress: RunProgress = freshProgress(),
): Promise<Submitted> {
  const code = verifiedCode(assignment);
  // Never past the lease: a run that outlives it could not be submitted.
  const leaseLeftMs = Date.parse(assignment.leaseExpiresAt) - deps.nowMs();
  const timeoutMs = Math.max(LEAST_RUN_MS, Math.min(deps.run.timeoutMs, leaseLeftMs));
  const outcome = await relayedRun(deps, assignment, { code, timeoutMs, progress });
  progress.stage = "submitting";
  const { submission, failure } = submissionOf(assignment, outcome, new Date(deps.nowMs()).toISOString());
  SubmissionAckSchema.parse(await submit(deps, JSON.stringify(submission)));
  progress.stage = "done";
  return {
    outcome: "submitted",
    agentPredictionId: assignment.agentPredictionId,
    eventId: assignment.event.id,
    minerHotkey: assignment.miner.hotkey,
    failure,
    runtimeMs: outcome.runtimeMs,
    llmCalls: progress.llm?.charged ?? 0,
    llmCostMicro: String(progress.llm?.costMicro ?? 0n),
    sandbox: outcome.sandbox,
  };
}

/** The agent's source, when its bytes hash to `agent.sha256`; else it is never run (throws). */
function verifiedCode(assignment: LeasedAssignment): string {
  const bytes = base64.decode(assignment.agent.code);
  const digest = bytesToHex(sha256(bytes));
  if (digest !== assignment.agent.sha256) {
    throw new Error(
      `agent ${assignment.agent.versionId}: the code's SHA-256 is ${digest}, the lease says ` +
        `${assignment.agent.sha256}; not running it`,
    );
  }
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

/**
 * Posts the submission, again after a network failure, a 429 or a 5xx (at most `SUBMIT_ATTEMPTS`
 * times, pausing 1 s, then 2 s, or what `Retry-After` asks up to 10 s): the run's result is not lost
 * to a blip. Never a lease: a second lease request could take a second assignment.
 */
async function submit(deps: ValidateDeps, body: string): Promise<unknown> {
  for (let attempt = 1;; attempt++) {
    try {
      const signal = deps.run.signal;
      return await signedJson(deps, {
        method: "POST",
        path: SUBMIT_PATH,
        body,
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      const pauseMs = retryPause(error, attempt, deps.nowMs());
      if (attempt >= SUBMIT_ATTEMPTS || pauseMs === null || deps.run.signal?.aborted) throw error;
      // Rejects at once when the validator is stopping.
      await delay(pauseMs, undefined, deps.run.signal ? { signal: deps.run.signal } : {});
    }
  }
}

/** How long to wait before retrying after `error`, or null when retrying cannot help. */
function retryPause(error: unknown, attempt: number, nowMs: number): number | null {
  if (!(error instanceof GatewayAnswerError)) return 1_000 * attempt; // the network
  if (error.status !== 429 && error.status < 500) return null;
  return Math.min(parseRetryAfter(error.retryAfter, nowMs) ?? 1_000 * attempt, MAX_PAUSE_MS);
}

async function signedJson(deps: ValidateDeps, call: SignedCall): Promise<unknown> {
  const url = gatewayUrl(deps.base, call.path);
  const response = await signedFetch(deps, call).catch((error) => {
    const cause = error instanceof Error && error.cause !== undefined ? `: ${String(error.cause)}` : "";
    throw new Error(
      `${call.method} ${url} failed: ${error instanceof Error ? error.message : error}${cause}`,
    );
  });
  const text = await response.text();
  if (!response.ok) throw new GatewayAnswerError(response.status, text, response.headers.get("retry-after"));
  return JSON.parse(text);
}
