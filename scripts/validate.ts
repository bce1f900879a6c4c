/**
 * `deno task validate --base URL` runs a validator's loop against the gateway: lease an
 * assignment (`GET /v1/validators/agent-and-event`), check the agent's digest, run its
 * `agent_main` on the event with `python3`, and submit what it returned
 * (`POST /v1/validators/prediction`), every request signed with the hotkey whose secret is in
 * `FGW_SIGNING_SECRET` (never printed). A reference for validators' own code and a way to try the
 * loop end to end: it runs the agent in a plain subprocess, not the sandbox a production
 * validator needs (docs/agents.md, "Limits a validator enforces"). See docs/validators.md,
 * "A reference validator".
 */
import { parseArgs } from "node:util";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64 } from "@scure/base";
import { type Signer, signerFromSecretHex, signRequest } from "../actors/validators/mod.ts";
import { LeaseReplySchema, SubmissionAckSchema } from "../routes/validators/validators_api.ts";
import { type AgentRunOptions, runAgent } from "./_agent_run.ts";
import { type LeasedAssignment, submissionOf } from "./_validator_submission.ts";

const LEASE_PATH = "/v1/validators/agent-and-event";
const SUBMIT_PATH = "/v1/validators/prediction";
/** The recommended limit of one run (docs/agents.md): well inside the 10-minute lease. */
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

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
  const outcome = await runAgent(code, assignment.event, deps.run);
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
  });
  const text = await response.text();
  if (!response.ok) throw new GatewayAnswerError(response.status, text);
  return JSON.parse(text);
}

const HELP = `Usage: deno task validate --base URL [options]

Leases an assignment, runs its agent with Python and submits the prediction; repeats up to --max
times, stopping early when none is available.
  FGW_SIGNING_SECRET   hex seed (32 bytes) or secret key (64 bytes) of the validator hotkey
  --base URL           the gateway (required)
  --max N              most assignments to run (default 1)
  --python PATH        the interpreter (default python3)
  --timeout-ms MS      limit of one run (default ${DEFAULT_TIMEOUT_MS})`;

/** Where the CLI reads its settings and writes its output (tests pass their own). */
export interface ValidateIo {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
  fetch(url: string, init: RequestInit): Promise<Response>;
  nowMs(): number;
}

interface CliOptions {
  deps: ValidateDeps;
  max: number;
}

function cliOptions(argv: string[], io: ValidateIo): CliOptions | string {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      base: { type: "string" },
      max: { type: "string", default: "1" },
      python: { type: "string", default: "python3" },
      "timeout-ms": { type: "string", default: String(DEFAULT_TIMEOUT_MS) },
      help: { type: "boolean" },
    },
  });
  if (values.help) return HELP;
  const max = Number(values.max);
  const timeoutMs = Number(values["timeout-ms"]);
  if (values.base === undefined || !URL.canParse(values.base)) throw new TypeError("--base must be a URL");
  if (!Number.isSafeInteger(max) || max < 1) throw new TypeError("--max must be a positive integer");
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    throw new TypeError("--timeout-ms must be a positive integer");
  }
  const secret = io.env.FGW_SIGNING_SECRET;
  if (!secret) throw new TypeError("FGW_SIGNING_SECRET is not set");
  const signer = signerFromSecretHex(secret);
  const run = { python: values.python, timeoutMs };
  return { deps: { base: values.base, signer, fetch: io.fetch, nowMs: io.nowMs, run }, max };
}

/** Runs one invocation; returns the exit status (0 done, 1 a request failed, 2 usage or key error). */
export async function runValidate(argv: string[], io: ValidateIo): Promise<number> {
  let options: CliOptions | string;
  try {
    options = cliOptions(argv, io);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  if (typeof options === "string") {
    io.out(options);
    return 0;
  }
  for (let turn = 0; turn < options.max; turn++) {
    try {
      const result = await validateOnce(options.deps);
      io.out(JSON.stringify(result));
      if (result.outcome === "none_available") return 0;
    } catch (error) {
      io.err(error instanceof Error ? error.message : String(error));
      return 1;
    }
  }
  return 0;
}

if (import.meta.main) {
  Deno.exit(
    await runValidate(Deno.args, {
      env: Deno.env.toObject(),
      out: (text) => console.log(text),
      err: (text) => console.error(text),
      fetch: (url, init) => fetch(url, init),
      nowMs: () => Date.now(),
    }),
  );
}
