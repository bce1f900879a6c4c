/**
 * The demo's validator: `deno task validate --loop` (scripts/validate/) as a child process,
 * signing as the demo metagraph's uid 0. It runs the agents in its sandbox; when its host check
 * says this host cannot sandbox runs, the demo prints what is missing and runs it again with
 * `--unsafe-no-sandbox` (the agents are this repository's own code), with `python3` from PATH.
 */
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { UNSAFE_WARNING } from "../validate/starter_setup.ts";
import { type DemoMiner } from "./demo_miners.ts";
import { lines } from "./lines.ts";

/** The seed of uid 0 of the demo metagraph: a validator with a permit (docs/validators.md). */
const VALIDATOR_SEED = "11".repeat(32);
/** How the validator's host check starts its refusal (scripts/validate/starter_setup.ts). */
const HOST_REFUSAL = "The agent sandbox cannot run on this host";
/** How long a stopped validator may take to end its runs before it is killed. */
const STOP_MS = 10_000;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface ValidatorOptions {
  base: string;
  /** Runs in progress at once (`--concurrency`). */
  concurrency: number;
  miners: readonly DemoMiner[];
  out(line: string): void;
  /** Stops the validator. */
  signal: AbortSignal;
}

/**
 * How many of the validator's runs ended how, by outcome and sandbox: `submitted (sandbox:
 * bubblewrap 0.8.0)` (docs/agents.md, "Running continuously").
 */
export type RunCounts = Record<string, number>;

/** What came of the validator: its runs, and why it ended when it was not stopped. */
export interface ValidatorEnd {
  counts: RunCounts;
  /** Null when it ended because it was stopped. */
  failure: string | null;
}

/**
 * Runs the validator until `options.signal` aborts (then stops it, SIGTERM, and waits for it) or
 * it ends on its own. `counts` is filled as runs end.
 */
export async function runValidator(options: ValidatorOptions, counts: RunCounts): Promise<ValidatorEnd> {
  const sandboxed = await runChild([], options, counts);
  if (sandboxed.failure === null || !sandboxed.hostRefused) return sandboxed;
  const python = await findOnPath("python3", Deno.env.get("PATH") ?? "");
  if (python === null) {
    const fix = "python3 is not installed, and the agents need it: install it (Debian, Ubuntu: " +
      "apt-get install python3; Fedora: dnf install python3; macOS: brew install python) and run the demo again";
    return { counts, failure: fix };
  }
  options.out(
    "The demo's agents are this repository's own code: running them without the sandbox " +
      `(--unsafe-no-sandbox, with ${python}). Add what is missing above to run them sandboxed.`,
  );
  return await runChild(["--unsafe-no-sandbox", "--python", python], options, counts);
}

/** One validator process, to its end; `hostRefused` when its host check refused to start. */
async function runChild(
  extra: string[],
  options: ValidatorOptions,
  counts: RunCounts,
): Promise<ValidatorEnd & { hostRefused: boolean }> {
  const args = ["run", "--allow-all", "scripts/validate/validate.ts", "--base", options.base, "--loop"];
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args, "--concurrency", String(options.concurrency), ...extra],
    cwd: ROOT,
    env: { FGW_SIGNING_SECRET: VALIDATOR_SEED },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let killer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    signalChild(child, "SIGTERM");
    killer = setTimeout(() => signalChild(child, "SIGKILL"), STOP_MS);
  };
  if (options.signal.aborted) stop();
  else options.signal.addEventListener("abort", stop, { once: true });
  let hostRefused = false;
  let warned = false;
  const stderr = (async () => {
    for await (const line of lines(child.stderr)) {
      if (line.startsWith(HOST_REFUSAL)) hostRefused = true;
      if (line === UNSAFE_WARNING) {
        if (!warned) options.out(`validator: ${line} (printed for every run; shown once here)`);
        warned = true;
      } else if (line.trim() !== "") options.out(`validator: ${line}`);
    }
  })();
  const stdout = (async () => {
    for await (const line of lines(child.stdout)) {
      countRun(line, { counts, miners: options.miners, out: options.out });
    }
  })();
  const status = await child.status;
  clearTimeout(killer);
  options.signal.removeEventListener("abort", stop);
  await Promise.all([stderr, stdout]);
  const failure = options.signal.aborted ? null : `the validator ended with status ${status.code}`;
  return { counts, failure, hostRefused };
}

/** The fields of a run's line the demo reads (docs/agents.md, "Running continuously"). */
const runLineSchema = z.object({
  outcome: z.string(),
  miner: z.string(),
  event: z.string(),
  sandbox: z.string(),
  error: z.string().optional(),
});

/** Counts one run line; says which miner's run did not submit, and why. */
function countRun(
  line: string,
  to: { counts: RunCounts; miners: readonly DemoMiner[]; out(line: string): void },
): void {
  const run = runLineSchema.safeParse(parseJson(line));
  if (!run.success) return to.out(`validator: ${line}`);
  const { outcome, miner: hotkey, event, sandbox, error } = run.data;
  const counted = `${outcome} (sandbox: ${sandbox})`;
  to.counts[counted] = (to.counts[counted] ?? 0) + 1;
  // Runs killed because the validator is stopping are expected then.
  if (outcome === "submitted" || outcome === "killed") return;
  const uid = to.miners.find((miner) => miner.signer.hotkey === hotkey)?.uid ?? hotkey;
  to.out(`validator: uid ${uid} on ${event}: ${outcome}${error ? `: ${error}` : ""}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function signalChild(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch {
    // It has ended already.
  }
}

/** The absolute path of `program` in one of `path`'s folders; null when none has it. */
async function findOnPath(program: string, path: string): Promise<string | null> {
  for (const folder of path.split(":").filter((entry) => entry !== "")) {
    const candidate = `${folder}/${program}`;
    const info = await Deno.stat(candidate).catch(() => null);
    if (info?.isFile) return candidate;
  }
  return null;
}
