/**
 * One run of a miner's agent for `deno task validate`: the code in a scratch directory, run by
 * `scripts/validate/agent_runner.py` in a fresh Python process with an empty environment, leading its own
 * process group, which is killed at the time limit and whenever the run ends (so nothing the agent
 * started outlives it). This is the contract's mechanics, not a sandbox: docs/agents.md ("Limits a
 * validator enforces") lists the isolation a production validator adds around it.
 */
import { fileURLToPath } from "node:url";
import { PipeReader } from "./pipe_reader.ts";

const RUNNER = fileURLToPath(new URL("./agent_runner.py", import.meta.url));
/** Most bytes of the runner's answer read back (a result is a few KiB; the trace at most 256 KiB). */
export const MAX_RESULT_BYTES = 1024 * 1024;
/** Bytes kept of the end of the agent's stderr (its prints, a crash's last words). */
const STDERR_TAIL_BYTES = 4096;
/** How long the interpreter check may take. */
const CHECK_TIMEOUT_MS = 10_000;
/** How long the pipes may stay open after the process ended (a child that left the group holds them). */
const PIPE_GRACE_MS = 1_000;

export interface AgentRunOptions {
  /** The Python interpreter (default `python3`). */
  python: string;
  /** Wall-clock limit of the run; the process group is killed at it. */
  timeoutMs: number;
  /** Aborts the run (the validator stops): the group is killed and `runAgent` rejects. */
  signal?: AbortSignal;
  /** The run's LLM relay socket, told to `forecasting_gateway` as `FGW_RELAY_SOCKET`. */
  relaySocket?: string;
}

export type RunError = { type: string; message: string };

/** What the run gave: the agent's result, or why the agent failed. */
export type AgentOutcome =
  | { ok: true; result: unknown; runtimeMs: number }
  | { ok: false; error: RunError; runtimeMs: number };

/**
 * Throws unless `python` runs the agent runner (the validator's start-up check: a missing or
 * broken interpreter is the validator's fault, never a miner's failed run).
 */
export async function checkPython(python: string): Promise<void> {
  const command = new Deno.Command(python, {
    args: ["-I", RUNNER, "--check"],
    clearEnv: true,
    signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
  });
  // `output()` throws at once when the program cannot be spawned: a promise catches both ways.
  const output = await Promise.resolve().then(() => command.output()).catch((error) => {
    throw new Error(`${python} cannot be started: ${error instanceof Error ? error.message : error}`);
  });
  const said = new TextDecoder().decode(output.stdout);
  if (!output.success || said !== "ok") {
    const stderr = new TextDecoder().decode(output.stderr).trim().split("\n").at(-1) ?? "";
    throw new Error(`${python} cannot run the agent runner (${RUNNER}): ${stderr || `exit ${output.code}`}`);
  }
}

/**
 * Runs `agent_main(event)` of `code` once (see the module comment). Rejects when the run could not
 * be made (the interpreter cannot be started) or was aborted: neither is the agent's failure.
 */
export async function runAgent(
  code: string,
  event: unknown,
  options: AgentRunOptions,
): Promise<AgentOutcome> {
  const dir = await Deno.makeTempDir({ prefix: "fgw-agent-" });
  const startedMs = performance.now();
  try {
    await Deno.writeTextFile(`${dir}/agent.py`, code);
    const judged = await runInDirectory(dir, JSON.stringify(event), options);
    const runtimeMs = Math.round(performance.now() - startedMs);
    return judged.ok
      ? { ok: true, result: judged.result, runtimeMs }
      : { ok: false, error: judged.error, runtimeMs };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

type Judged = { ok: true; result: unknown } | { ok: false; error: RunError };

async function runInDirectory(dir: string, eventJson: string, options: AgentRunOptions): Promise<Judged> {
  options.signal?.throwIfAborted();
  const child = new Deno.Command(options.python, {
    args: ["-I", RUNNER],
    cwd: dir,
    clearEnv: true,
    env: {
      PYTHONDONTWRITEBYTECODE: "1",
      ...(options.relaySocket ? { FGW_RELAY_SOCKET: options.relaySocket } : {}),
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new PipeReader(child.stdout, { keep: "head", limit: MAX_RESULT_BYTES });
  const stderr = new PipeReader(child.stderr, { keep: "tail", limit: STDERR_TAIL_BYTES });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, options.timeoutMs);
  const abort = () => killGroup(child);
  options.signal?.addEventListener("abort", abort);
  try {
    await feed(child, eventJson);
    const status = await child.status;
    killGroup(child); // whatever the agent started and left running
    await Promise.all([stdout.done(PIPE_GRACE_MS), stderr.done(PIPE_GRACE_MS)]);
    options.signal?.throwIfAborted();
    if (timedOut) return failed("Timeout", `the run exceeded ${options.timeoutMs} ms and was killed`);
    return judged(stdout, stderr.text(), status);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", abort);
  }
}

async function feed(child: Deno.ChildProcess, eventJson: string): Promise<void> {
  const writer = child.stdin.getWriter();
  // A runner that exits before reading (killed at once) closes the pipe: nothing to report here.
  await writer.write(new TextEncoder().encode(eventJson)).catch(() => {});
  await writer.close().catch(() => {});
}

/** The runner's envelope; an agent that ended the process without one has failed. */
function judged(stdout: PipeReader, stderr: string, status: Deno.CommandStatus): Judged {
  if (stdout.truncated) return failed("ResultTooLarge", `the result exceeds ${MAX_RESULT_BYTES} bytes`);
  let envelope: unknown;
  try {
    envelope = JSON.parse(stdout.text());
  } catch {
    const last = stderr.trimEnd().split("\n").at(-1) ?? "";
    const how = status.signal ? `signal ${status.signal}` : `exit code ${status.code}`;
    return failed(
      "NoResult",
      `the agent's process ended without a result (${how})${last ? `: ${last}` : ""}`,
    );
  }
  if (envelope === null || typeof envelope !== "object") {
    return failed("NoResult", "the agent's process wrote something else than the runner's answer");
  }
  const { ok, result, error } = envelope as { ok?: unknown; result?: unknown; error?: Partial<RunError> };
  if (ok === true) return { ok: true, result };
  return failed(String(error?.type ?? "AgentError"), String(error?.message ?? ""));
}

/** A failed run's error (cut to whole code points and made storable by `storableError` where it is submitted). */
function failed(type: string, message: string): Judged {
  return { ok: false, error: { type, message } };
}

/** Kills the runner's process group (it leads one), else the runner alone (before it made the group). */
function killGroup(child: Deno.ChildProcess): void {
  try {
    Deno.kill(-child.pid, "SIGKILL");
  } catch {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
