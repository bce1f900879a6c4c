/**
 * `deno task validate --base URL` runs a validator's loop against the gateway: lease an
 * assignment (`GET /v1/validators/agent-and-event`), check the agent's digest, run its
 * `agent_main` on the event with `python3`, and submit what it returned
 * (`POST /v1/validators/prediction`), every request signed with the hotkey whose secret is in
 * `FGW_SIGNING_SECRET` (never printed). A reference for validators' own code and a way to try the
 * loop end to end: it runs the agent in a plain subprocess, not the sandbox a production
 * validator needs (docs/agents.md, "Limits a validator enforces"). See docs/agents.md,
 * "A reference validator".
 */
import { parseArgs } from "node:util";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64 } from "@scure/base";
import { type Signer, signerFromSecretHex, signRequest } from "../actors/validators/mod.ts";
import { LeaseReplySchema, SubmissionAckSchema } from "../routes/validators/validators_api.ts";
import { type AgentRunOptions, checkPython, runAgent } from "./_agent_run.ts";
import { type LeasedAssignment, submissionOf } from "./_validator_submission.ts";

const LEASE_PATH = "/v1/validators/agent-and-event";
const SUBMIT_PATH = "/v1/validators/prediction";
/** The recommended limit of one run (docs/agents.md): well inside the 10-minute lease. */
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/** The longest a timer can wait (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;
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

const HELP = `Usage: deno task validate --base URL [options]

Leases an assignment, runs its agent with Python and submits the prediction; repeats up to --max
times, stopping early when none is available.
  FGW_SIGNING_SECRET   hex seed (32 bytes) or secret key (64 bytes) of the validator hotkey
  --base URL           the gateway (required)
  --max N              most assignments to run (default 1)
  --python PATH        the interpreter (default python3)
  --timeout-ms MS      limit of one run (default ${DEFAULT_TIMEOUT_MS}; never past the lease)
Exit status: 0 done, 1 a request failed or an agent's digest did not match, 2 usage, key or
interpreter error, 130 interrupted (the run in progress is killed, nothing submitted).`;

/** Where the CLI reads its settings and writes its output (tests pass their own). */
export interface ValidateIo {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
  fetch(url: string, init: RequestInit): Promise<Response>;
  nowMs(): number;
  /** Aborted when the process is asked to stop (SIGINT, SIGTERM). */
  signal?: AbortSignal;
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
  const base = values.base;
  if (base === undefined || !isHttpUrl(base)) {
    throw new TypeError("--base must be an http:// or https:// URL");
  }
  if (!Number.isSafeInteger(max) || max < 1) throw new TypeError("--max must be a positive integer");
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new TypeError(`--timeout-ms must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
  }
  const secret = io.env.FGW_SIGNING_SECRET;
  if (!secret) throw new TypeError("FGW_SIGNING_SECRET is not set");
  const signer = signerFromSecretHex(secret);
  const run = { python: values.python, timeoutMs, ...(io.signal ? { signal: io.signal } : {}) };
  return { deps: { base, signer, fetch: io.fetch, nowMs: io.nowMs, run }, max };
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === "http:" || protocol === "https:";
}

/** Runs one invocation; returns the exit status (see `HELP`). */
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
  try {
    await checkPython(options.deps.run.python);
  } catch (error) {
    io.err(error instanceof Error ? error.message : String(error));
    return 2;
  }
  return await turns(options, io);
}

async function turns({ deps, max }: CliOptions, io: ValidateIo): Promise<number> {
  for (let turn = 0; turn < max; turn++) {
    try {
      const result = await validateOnce(deps);
      io.out(JSON.stringify(result));
      if (result.outcome === "none_available") return 0;
    } catch (error) {
      if (io.signal?.aborted) {
        io.err("interrupted: the run in progress was killed and nothing was submitted for it");
        return 130;
      }
      io.err(error instanceof Error ? error.message : String(error));
      return 1;
    }
  }
  return 0;
}

/** An AbortSignal that SIGINT or SIGTERM aborts (the listeners are removed by `release`). */
function stopSignal(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error("interrupted"));
  const names = ["SIGINT", "SIGTERM"] as const;
  for (const name of names) Deno.addSignalListener(name, stop);
  return {
    signal: controller.signal,
    release: () => names.forEach((name) => Deno.removeSignalListener(name, stop)),
  };
}

if (import.meta.main) {
  const stop = stopSignal();
  const status = await runValidate(Deno.args, {
    env: Deno.env.toObject(),
    out: (text) => console.log(text),
    err: (text) => console.error(text),
    fetch: (url, init) => fetch(url, { ...init, signal: stop.signal }),
    nowMs: () => Date.now(),
    signal: stop.signal,
  });
  stop.release();
  Deno.exit(status);
}
