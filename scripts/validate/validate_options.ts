/** The command line of `deno task validate` (docs/agents.md, "A reference validator"): its help and its options. */
import { parseArgs } from "node:util";
import { RELAY_LIMITS } from "./relay/mod.ts";

/** The recommended limit of one run (docs/agents.md): well inside the 10-minute lease. */
export const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/** The longest a timer can wait (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** Bounds of the numeric options. */
const MAX_CONCURRENCY = 64;
const MAX_LLM_CALLS = 1_000;

export const HELP = `Usage: deno task validate --base URL [options]
       deno task validate --base URL --loop [--concurrency N] [options]
       deno task validate --self-test [--python PATH]

Leases an assignment, runs its agent in the sandbox with its LLM relay and submits the
prediction; repeats up to --max times, stopping early when none is available. With --loop it
runs as a service instead: it leases while fewer than --concurrency runs are in progress, waits
when none is available (1 s, doubling up to 30 s) and prints one JSON line per run, until
SIGTERM or SIGINT.
  FGW_SIGNING_SECRET   hex seed (32 bytes) or secret key (64 bytes) of the validator hotkey
  --base URL           the gateway (required)
  --max N              most assignments to run (default 1; not with --loop)
  --python PATH        the system interpreter (default /usr/bin/python3)
  --timeout-ms MS      limit of one run (default ${DEFAULT_TIMEOUT_MS}; never past the lease)
  --llm-max-calls N    LLM calls an agent may make per run (default ${RELAY_LIMITS.maxCalls})
  --loop               run continuously (see above)
  --concurrency N      runs in progress at once with --loop (default 1, at most ${MAX_CONCURRENCY})
  --stop-grace-ms MS   with --loop, how long runs in progress may finish after a stop signal
                       before they are killed and nothing is submitted for them (default 0)
  --self-test          run the sandbox's escape checks on this host and print each verdict
  --unsafe-no-sandbox  run agents without the sandbox, with your user, files and network:
                       for code you trust only (a warning is printed on every run)
Exit status: 0 done (or stopped, with --loop), 1 a request failed, an agent's digest did not
match or a run could not be started, 2 usage, key or host error (what is missing and how to fix
it), 130 interrupted (the run in progress is killed, nothing submitted).`;

/** What every run needs, whatever the mode. */
export interface RunSettings {
  /** The gateway's base URL. */
  base: string;
  python: string;
  unsafe: boolean;
  timeoutMs: number;
  /** The relay's per-run limit of LLM calls. */
  llmMaxCalls: number;
}

/** What the command line asks for. */
export type CliOptions =
  | { mode: "help" }
  | { mode: "self-test"; python: string }
  | { mode: "once"; run: RunSettings; max: number }
  | { mode: "loop"; run: RunSettings; concurrency: number; stopGraceMs: number };

const OPTIONS = {
  base: { type: "string" },
  max: { type: "string" },
  python: { type: "string", default: "/usr/bin/python3" },
  "timeout-ms": { type: "string", default: String(DEFAULT_TIMEOUT_MS) },
  "llm-max-calls": { type: "string", default: String(RELAY_LIMITS.maxCalls) },
  loop: { type: "boolean", default: false },
  concurrency: { type: "string" },
  "stop-grace-ms": { type: "string" },
  "self-test": { type: "boolean", default: false },
  "unsafe-no-sandbox": { type: "boolean", default: false },
  help: { type: "boolean", default: false },
} as const;

/** The options of `argv`; throws `TypeError` naming the first bad one. */
export function parseCli(argv: string[]): CliOptions {
  const { values } = parseArgs({ args: argv, strict: true, options: OPTIONS });
  if (values.help) return { mode: "help" };
  if (values["self-test"]) {
    if (values["unsafe-no-sandbox"]) {
      throw new TypeError("--self-test checks the sandbox: leave out --unsafe-no-sandbox");
    }
    return { mode: "self-test", python: values.python };
  }
  const base = values.base;
  if (base === undefined || !isHttpUrl(base)) {
    throw new TypeError("--base must be an http:// or https:// URL");
  }
  const run = {
    base,
    python: values.python,
    unsafe: values["unsafe-no-sandbox"],
    timeoutMs: integer(values["timeout-ms"], "--timeout-ms", { min: 1, max: MAX_TIMEOUT_MS }),
    llmMaxCalls: integer(values["llm-max-calls"], "--llm-max-calls", { min: 0, max: MAX_LLM_CALLS }),
  };
  if (!values.loop) {
    if (values.concurrency !== undefined || values["stop-grace-ms"] !== undefined) {
      throw new TypeError("--concurrency and --stop-grace-ms go with --loop");
    }
    return { mode: "once", run, max: integer(values.max ?? "1", "--max", { min: 1 }) };
  }
  if (values.max !== undefined) throw new TypeError("--max does not go with --loop");
  const concurrency = integer(values.concurrency ?? "1", "--concurrency", { min: 1, max: MAX_CONCURRENCY });
  const stopGraceMs = integer(values["stop-grace-ms"] ?? "0", "--stop-grace-ms", {
    min: 0,
    max: MAX_TIMEOUT_MS,
  });
  return { mode: "loop", run, concurrency, stopGraceMs };
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
