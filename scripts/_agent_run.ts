/**
 * One run of a miner's agent for `deno task validate`: the code in a scratch directory, run by
 * `scripts/agent_runner.py` in a fresh Python process with an empty environment, killed at the
 * time limit. This is the contract's mechanics, not a sandbox: docs/agents.md ("Limits a
 * validator enforces") lists the isolation a production validator adds around it.
 */
import { fileURLToPath } from "node:url";

const RUNNER = fileURLToPath(new URL("./agent_runner.py", import.meta.url));
/** Most bytes of the agent's result read back (a result is a few KiB; the trace at most 256 KiB). */
export const MAX_RESULT_BYTES = 1024 * 1024;
/** Most characters of an error message kept for the failed run's trace. */
const MAX_ERROR_CHARS = 1_000;

export interface AgentRunOptions {
  /** The Python interpreter (default `python3`). */
  python: string;
  /** Wall-clock limit of the run; the process is killed at it. */
  timeoutMs: number;
}

/** What the run gave: the agent's result, or why it failed. */
export type AgentOutcome =
  | { ok: true; result: unknown; runtimeMs: number }
  | { ok: false; error: { type: string; message: string }; runtimeMs: number };

/** Runs `agent_main(event)` of `code` once (see the module comment). */
export async function runAgent(
  code: string,
  event: unknown,
  options: AgentRunOptions,
): Promise<AgentOutcome> {
  const dir = await Deno.makeTempDir({ prefix: "fgw-agent-" });
  const startedMs = performance.now();
  const elapsed = () => Math.round(performance.now() - startedMs);
  try {
    await Deno.writeTextFile(`${dir}/agent.py`, code);
    const outcome = await runInDirectory(dir, JSON.stringify(event), options);
    return outcome.ok
      ? { ok: true, result: outcome.result, runtimeMs: elapsed() }
      : { ok: false, error: outcome.error, runtimeMs: elapsed() };
  } catch (error) {
    const failure = error instanceof Deno.errors.NotFound
      ? { type: "PythonNotFound", message: `${options.python} is not installed` }
      : { type: "RunFailed", message: String(error).slice(0, MAX_ERROR_CHARS) };
    return { ok: false, error: failure, runtimeMs: elapsed() };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

type RunResult = { ok: true; result: unknown } | { ok: false; error: { type: string; message: string } };

async function runInDirectory(dir: string, eventJson: string, options: AgentRunOptions): Promise<RunResult> {
  const child = new Deno.Command(options.python, {
    args: ["-I", RUNNER],
    cwd: dir,
    clearEnv: true,
    env: { PYTHONDONTWRITEBYTECODE: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killQuietly(child);
  }, options.timeoutMs);
  try {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(eventJson)).catch(() => {});
    await writer.close().catch(() => {});
    const [stdout, stderr, status] = await Promise.all([
      readCapped(child.stdout, MAX_RESULT_BYTES),
      readCapped(child.stderr, MAX_ERROR_CHARS * 4),
      child.status,
    ]);
    return judged({ stdout, stderr, status, timedOut, options });
  } finally {
    clearTimeout(timer);
  }
}

function judged(
  run: {
    stdout: Capped;
    stderr: Capped;
    status: Deno.CommandStatus;
    timedOut: boolean;
    options: AgentRunOptions;
  },
): RunResult {
  const { stdout, stderr, status, timedOut, options } = run;
  if (timedOut) return failed("Timeout", `the run exceeded ${options.timeoutMs} ms and was killed`);
  if (!status.success) return failed(...lastErrorLine(stderr.text));
  if (stdout.truncated) return failed("ResultTooLarge", `the result exceeds ${MAX_RESULT_BYTES} bytes`);
  try {
    return { ok: true, result: JSON.parse(stdout.text) };
  } catch {
    return failed("InvalidResult", "the result is not JSON");
  }
}

function failed(type: string, message: string): RunResult {
  return { ok: false, error: { type, message: message.slice(0, MAX_ERROR_CHARS) } };
}

/** `Type: message` of the runner's last stderr line (tracebacks and the agent's prints come before it). */
function lastErrorLine(stderr: string): [string, string] {
  const line = stderr.trimEnd().split("\n").at(-1) ?? "";
  const match = /^([A-Za-z_][\w.]*): ?(.*)$/.exec(line);
  return match ? [match[1]!, match[2]!] : ["AgentError", line || "the agent exited with an error"];
}

interface Capped {
  text: string;
  truncated: boolean;
}

/** The stream's bytes as UTF-8 text, at most `limit` of them (the rest is read and dropped). */
async function readCapped(stream: ReadableStream<Uint8Array>, limit: number): Promise<Capped> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of stream) {
    if (size + chunk.length > limit) truncated = true;
    if (size < limit) chunks.push(chunk.subarray(0, limit - size));
    size += chunk.length;
  }
  const bytes = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { text: new TextDecoder().decode(bytes), truncated };
}

function killQuietly(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch {
    // Already gone.
  }
}
