/** The command line of `deno task validate` (scripts/validate/validate.ts): its help and its options. */
import { parseArgs } from "node:util";

/** The recommended limit of one run (docs/agents.md): well inside the 10-minute lease. */
export const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/** The longest a timer can wait (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export const HELP = `Usage: deno task validate --base URL [options]
       deno task validate --self-test [--python PATH]

Leases an assignment, runs its agent in the sandbox and submits the prediction; repeats up to
--max times, stopping early when none is available.
  FGW_SIGNING_SECRET   hex seed (32 bytes) or secret key (64 bytes) of the validator hotkey
  --base URL           the gateway (required)
  --max N              most assignments to run (default 1)
  --python PATH        the system interpreter (default /usr/bin/python3)
  --timeout-ms MS      limit of one run (default ${DEFAULT_TIMEOUT_MS}; never past the lease)
  --self-test          run the sandbox's escape checks on this host and print each verdict
  --unsafe-no-sandbox  run agents without the sandbox, with your user, files and network:
                       for code you trust only (a warning is printed on every run)
Exit status: 0 done, 1 a request failed, an agent's digest did not match or a run could not be
started, 2 usage, key or host error (what is missing and how to fix it), 130 interrupted (the
run in progress is killed, nothing submitted).`;

export interface CliOptions {
  help: boolean;
  selfTest: boolean;
  unsafe: boolean;
  /** Absent only with --help or --self-test. */
  base: string;
  max: number;
  python: string;
  timeoutMs: number;
}

/** The options of `argv`; throws `TypeError` naming the first bad one. */
export function parseCli(argv: string[]): CliOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      base: { type: "string" },
      max: { type: "string", default: "1" },
      python: { type: "string", default: "/usr/bin/python3" },
      "timeout-ms": { type: "string", default: String(DEFAULT_TIMEOUT_MS) },
      "self-test": { type: "boolean", default: false },
      "unsafe-no-sandbox": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  const options = {
    help: values.help,
    selfTest: values["self-test"],
    unsafe: values["unsafe-no-sandbox"],
    base: values.base ?? "",
    max: Number(values.max),
    python: values.python,
    timeoutMs: Number(values["timeout-ms"]),
  };
  if (options.help || options.selfTest) return options;
  if (!isHttpUrl(options.base)) throw new TypeError("--base must be an http:// or https:// URL");
  if (!Number.isSafeInteger(options.max) || options.max < 1) {
    throw new TypeError("--max must be a positive integer");
  }
  const { timeoutMs } = options;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new TypeError(`--timeout-ms must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
  }
  return options;
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === "http:" || protocol === "https:";
}
