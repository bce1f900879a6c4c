/**
 * `deno task validate --base URL` runs a validator's loop against the gateway, one turn per
 * assignment (`validator_turn.ts`: lease, check the agent's digest, run its `agent_main` with
 * Python, submit), every request signed with the hotkey whose secret is in `FGW_SIGNING_SECRET`
 * (never printed). A reference for validators' own code and a way to try the loop end to end: it
 * runs the agent in a plain subprocess, not the sandbox a production validator needs
 * (docs/agents.md, "Limits a validator enforces", and "A reference validator").
 */
import { parseArgs } from "node:util";
import { signerFromSecretHex } from "../../actors/validators/mod.ts";
import { checkPython } from "./agent_run.ts";
import { type ValidateDeps, validateOnce } from "./validator_turn.ts";

export {
  GatewayAnswerError,
  type Submitted,
  type TurnResult,
  type ValidateDeps,
  validateOnce,
} from "./validator_turn.ts";

/** The recommended limit of one run (docs/agents.md): well inside the 10-minute lease. */
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/** The longest a timer can wait (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

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
