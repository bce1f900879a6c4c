/** The command line of `deno task validate` (docs/agents.md, "A reference validator"). */
import { parseArgs } from "node:util";
import { signerFromSecretHex } from "../../actors/validators/mod.ts";
import { RELAY_LIMITS } from "./relay/mod.ts";
import type { ValidateDeps } from "./validator_turn.ts";

/** The recommended limit of one run (docs/agents.md): well inside the 10-minute lease. */
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/** The longest a timer can wait (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** Bounds of the numeric options. */
const MAX_CONCURRENCY = 64;
const MAX_LLM_CALLS = 1_000;

export const HELP = `Usage: deno task validate --base URL [options]

Leases an assignment, runs its agent with Python and submits the prediction; repeats up to --max
times, stopping early when none is available. With --loop it runs as a service instead: it leases
while fewer than --concurrency runs are in progress, waits when none is available (1 s, doubling
up to 30 s) and prints one JSON line per run, until SIGTERM or SIGINT.
  FGW_SIGNING_SECRET   hex seed (32 bytes) or secret key (64 bytes) of the validator hotkey
  --base URL           the gateway (required)
  --max N              most assignments to run (default 1; not with --loop)
  --python PATH        the interpreter (default python3)
  --timeout-ms MS      limit of one run (default ${DEFAULT_TIMEOUT_MS}; never past the lease)
  --llm-max-calls N    LLM calls an agent may make per run (default ${RELAY_LIMITS.maxCalls})
  --loop               run continuously (see above)
  --concurrency N      runs in progress at once with --loop (default 1, at most ${MAX_CONCURRENCY})
  --stop-grace-ms MS   with --loop, how long runs in progress may finish after a stop signal
                       before they are killed and nothing is submitted for them (default 0)
Exit status: 0 done (or stopped, with --loop), 1 a request failed or an agent's digest did not
match, 2 usage, key or interpreter error, 130 interrupted (the run in progress is killed, nothing
submitted).`;

/** What the command line asks for. */
export type CliOptions =
  | { mode: "help" }
  | { mode: "once"; deps: ValidateDeps; max: number }
  | { mode: "loop"; deps: ValidateDeps; concurrency: number; stopGraceMs: number };

const OPTIONS = {
  base: { type: "string" },
  max: { type: "string" },
  python: { type: "string", default: "python3" },
  "timeout-ms": { type: "string", default: String(DEFAULT_TIMEOUT_MS) },
  "llm-max-calls": { type: "string", default: String(RELAY_LIMITS.maxCalls) },
  loop: { type: "boolean" },
  concurrency: { type: "string" },
  "stop-grace-ms": { type: "string" },
  help: { type: "boolean" },
} as const;

/** Reads `argv` and the secret in `env`; throws a TypeError naming what is wrong. */
export function cliOptions(
  argv: string[],
  at: {
    env: Record<string, string | undefined>;
    deps: Pick<ValidateDeps, "fetch" | "nowMs">;
    signal?: AbortSignal;
  },
): CliOptions {
  const { values } = parseArgs({ args: argv, strict: true, options: OPTIONS });
  if (values.help) return { mode: "help" };
  const base = values.base;
  if (base === undefined || !isHttpUrl(base)) {
    throw new TypeError("--base must be an http:// or https:// URL");
  }
  const timeoutMs = integer(values["timeout-ms"], "--timeout-ms", { min: 1, max: MAX_TIMEOUT_MS });
  const maxCalls = integer(values["llm-max-calls"], "--llm-max-calls", { min: 0, max: MAX_LLM_CALLS });
  const secret = at.env.FGW_SIGNING_SECRET;
  if (!secret) throw new TypeError("FGW_SIGNING_SECRET is not set");
  const run = { python: values.python, timeoutMs, ...(at.signal ? { signal: at.signal } : {}) };
  const deps = { base, signer: signerFromSecretHex(secret), ...at.deps, run, relay: { maxCalls } };
  if (!values.loop) {
    if (values.concurrency !== undefined || values["stop-grace-ms"] !== undefined) {
      throw new TypeError("--concurrency and --stop-grace-ms go with --loop");
    }
    return { mode: "once", deps, max: integer(values.max ?? "1", "--max", { min: 1 }) };
  }
  if (values.max !== undefined) throw new TypeError("--max does not go with --loop");
  const concurrency = integer(values.concurrency ?? "1", "--concurrency", { min: 1, max: MAX_CONCURRENCY });
  const stopGraceMs = integer(values["stop-grace-ms"] ?? "0", "--stop-grace-ms", {
    min: 0,
    max: MAX_TIMEOUT_MS,
  });
  return { mode: "loop", deps, concurrency, stopGraceMs };
}

function integer(text: string, name: string, range: { min: number; max?: number }): number {
  const value = Number(text);
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < range.min || value > max) {
    const bound = range.max === undefined ? `at least ${range.min}` : `from ${range.min} to ${range.max}`;
    throw new TypeError(`${name} must be an integer ${bound}`);
  }
  return value;
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === "http:" || protocol === "https:";
}
