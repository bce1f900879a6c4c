/**
 * One turn of a validator's loop (`deno task validate`, scripts/validate.ts): lease an assignment
 * (`GET /v1/validators/agent-and-event`), check the agent's digest, run its `agent_main` on the
 * event (`_agent_run.ts`), and submit the result or a failed run (`_validator_submission.ts`,
 * `POST /v1/validators/prediction`), every request signed as the validator.
 */
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64 } from "@scure/base";
import { type Signer, signRequest } from "../actors/validators/mod.ts";
import { LeaseReplySchema, SubmissionAckSchema } from "../routes/validators/validators_api.ts";
import { type AgentRunOptions, runAgent } from "./_agent_run.ts";
import { type LeasedAssignment, submissionOf } from "./_validator_submission.ts";

const LEASE_PATH = "/v1/validators/agent-and-event";
const SUBMIT_PATH = "/v1/validators/prediction";
/** Least time a run gets, however little of the lease is left. */
const LEAST_RUN_MS = 1_000;

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
  constructor(readonly status: number, readonly body: string) {
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
  SubmissionAckSchema.parse(await signedJson(deps, "POST", SUBMIT_PATH, JSON.stringify(submission)));
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

async function signedJson(deps: ValidateDeps, method: string, path: string, body?: string): Promise<unknown> {
  const url = new URL(path, deps.base).href;
  const headers = signRequest(deps.signer, { method, url, ...(body !== undefined ? { body } : {}) }, {
    role: "validator",
    nowMs: deps.nowMs(),
  });
  const response = await deps.fetch(url, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    ...(body !== undefined ? { body: utf8ToBytes(body) } : {}),
  }).catch((error) => {
    const cause = error instanceof Error && error.cause !== undefined ? `: ${String(error.cause)}` : "";
    throw new Error(`${method} ${url} failed: ${error instanceof Error ? error.message : error}${cause}`);
  });
  const text = await response.text();
  if (!response.ok) throw new GatewayAnswerError(response.status, text);
  return JSON.parse(text);
}
