/**
 * One turn of a validator's loop (`deno task validate`, scripts/validate/validate.ts): lease an assignment
 * (`GET /v1/validators/agent-and-event`), check the agent's digest, run its `agent_main` on the
 * event (`agent_run.ts`), and submit the result or a failed run (`validator_submission.ts`,
 * `POST /v1/validators/prediction`), every request signed as the validator.
 */
import { bytesToHex } from "@noble/hashes/utils.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64 } from "@scure/base";
import { setTimeout as delay } from "node:timers/promises";
import { parseRetryAfter } from "../../actors/kernel/mod.ts";
import type { Signer } from "../../actors/validators/mod.ts";
import { LeaseReplySchema, SubmissionAckSchema } from "../../routes/validators/validators_api.ts";
import { type AgentRunOptions, runAgent } from "./agent_run.ts";
import { type LeasedAssignment, submissionOf } from "./validator_submission.ts";
import { gatewayUrl, signedFetch } from "./signed_fetch.ts";

const LEASE_PATH = "/v1/validators/agent-and-event";
const SUBMIT_PATH = "/v1/validators/prediction";
/** Least time a run gets, however little of the lease is left. */
const LEAST_RUN_MS = 1_000;
/** Attempts of a submission (it is idempotent for its validator: a retry gets the same ack). */
const SUBMIT_ATTEMPTS = 3;
/** Longest pause between two attempts, whatever `Retry-After` says. */
const MAX_PAUSE_MS = 10_000;

export interface ValidateDeps {
  /** The gateway's base URL, e.g. `http://127.0.0.1:8080`. */
  base: string;
  signer: Signer;
  fetch(url: string, init: RequestInit): Promise<Response>;
  /** Epoch milliseconds, for the signatures' timestamps and `submittedAt`. */
  nowMs(): number;
  run: AgentRunOptions;
}

/** What one turn did. */
export type TurnResult =
  | { outcome: "none_available" }
  | {
    outcome: "submitted";
    agentPredictionId: string;
    eventId: string;
    minerHotkey: string;
    /** The run's error when it failed (submitted with `predictionIsInvalid: true`). */
    failure: { type: string; message: string } | null;
  };

/** An answer of the gateway other than the one expected: its status and error body. */
export class GatewayAnswerError extends Error {
  constructor(readonly status: number, readonly body: string, readonly retryAfter: string | null = null) {
    super(`the gateway answered ${status}: ${body.slice(0, 500)}`);
    this.name = "GatewayAnswerError";
  }
}

/** One turn: lease, run, submit (see the module comment). Throws when the gateway refuses a request. */
export async function validateOnce(deps: ValidateDeps): Promise<TurnResult> {
  const lease = LeaseReplySchema.parse(await signedJson(deps, "GET", LEASE_PATH));
  if (lease.assignment === null) return { outcome: "none_available" };
  const assignment = lease.assignment;
  const code = verifiedCode(assignment);
  // Never past the lease: a run that outlives it could not be submitted.
  const leaseLeftMs = Date.parse(assignment.leaseExpiresAt) - deps.nowMs();
  const timeoutMs = Math.max(LEAST_RUN_MS, Math.min(deps.run.timeoutMs, leaseLeftMs));
  const outcome = await runAgent(code, assignment.event, { ...deps.run, timeoutMs });
  const { submission, failure } = submissionOf(assignment, outcome, new Date(deps.nowMs()).toISOString());
  SubmissionAckSchema.parse(await submit(deps, JSON.stringify(submission)));
  return {
    outcome: "submitted",
    agentPredictionId: assignment.agentPredictionId,
    eventId: assignment.event.id,
    minerHotkey: assignment.miner.hotkey,
    failure,
  };
}

/** The agent's source, when its bytes hash to `agent.sha256`; else it is never run (throws). */
export function verifiedCode(assignment: LeasedAssignment): string {
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
      return await signedJson(deps, "POST", SUBMIT_PATH, body);
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

async function signedJson(deps: ValidateDeps, method: string, path: string, body?: string): Promise<unknown> {
  const url = gatewayUrl(deps.base, path);
  const call = { method, path, ...(body !== undefined ? { body } : {}) };
  const response = await signedFetch(deps, call).catch((error) => {
    const cause = error instanceof Error && error.cause !== undefined ? `: ${String(error.cause)}` : "";
    throw new Error(`${method} ${url} failed: ${error instanceof Error ? error.message : error}${cause}`);
  });
  const text = await response.text();
  if (!response.ok) throw new GatewayAnswerError(response.status, text, response.headers.get("retry-after"));
  return JSON.parse(text);
}
