/**
 * One run of a miner's agent for `deno task validate` (docs/agents.md, "Running agents safely"):
 * a `RunStarter` starts `agent_runner.py` (in the sandbox, or bare for trusted code), which is fed
 * the code and the event, killed with everything it started at the time limit, and judged by what
 * it wrote on its result channel. Without the runner's "started" mark there the run never reached
 * the agent: that is the validator's failure (`RunnerFailure`, nothing submitted), never the
 * miner's. After the mark, whatever happened is the agent's own result.
 */
import { nestsAtMost } from "../../routes/http/validation.ts";
import { PipeReader } from "./pipe_reader.ts";
import { type RunStarter, STARTED_MARK } from "./run_starter.ts";

/** Most bytes of the runner's answer read back (a result is a few KiB; the trace at most 256 KiB). */
export const MAX_RESULT_BYTES = 1024 * 1024;
/** Deepest nesting of objects and arrays in a result (as the gateway takes free-form JSON). */
export const MAX_RESULT_DEPTH = 64;
/** Bytes kept of the end of the agent's output (stdout and stderr together: prints, a crash's last words). */
const OUTPUT_TAIL_BYTES = 4096;
/** How long the pipes may stay open after the process ended (a child that left the group holds them). */
const PIPE_GRACE_MS = 1_000;

export interface AgentRunOptions {
  starter: RunStarter;
  /** Wall-clock limit of the run; the process group is killed at it. */
  timeoutMs: number;
  /** Aborts the run (the validator stops): the group is killed and `runAgent` rejects. */
  signal?: AbortSignal;
  /** The host path of the run's LLM relay socket. */
  relaySocket?: string;
}

export type RunError = { type: string; message: string };

/** What the run gave: the agent's result, or why the agent failed; how long it took, and in what. */
export type AgentOutcome =
  & ({ ok: true; result: unknown } | { ok: false; error: RunError })
  & { runtimeMs: number; sandbox: string };

/** The run could not be made, or ended before it reached the agent: the validator's failure. */
export class RunnerFailure extends Error {
  override name = "RunnerFailure";
}

type Judged = { ok: true; result: unknown } | { ok: false; error: RunError };

interface Ended {
  stdout: PipeReader;
  output: string;
  status: Deno.CommandStatus;
  timedOut: boolean;
}

/**
 * Runs `agent_main(event)` of `code` once (see the module comment). Rejects with `RunnerFailure`
 * when the run could not be made, and with the abort reason when it was aborted.
 */
export async function runAgent(
  code: string,
  event: unknown,
  options: AgentRunOptions,
): Promise<AgentOutcome> {
  options.signal?.throwIfAborted();
  const startedMs = performance.now();
  const relay = options.relaySocket === undefined ? {} : { relaySocket: options.relaySocket };
  const run = await options.starter.start(relay).catch((error) => {
    throw new RunnerFailure(`Cannot start the run: ${error instanceof Error ? error.message : error}`);
  });
  let ended: Ended;
  let memoryExceeded: boolean;
  try {
    ended = await watched(run.child, JSON.stringify({ code, event }), options);
  } finally {
    ({ memoryExceeded } = await run.finish());
  }
  const judged = judge(ended, memoryExceeded, options.timeoutMs);
  return { ...judged, runtimeMs: Math.round(performance.now() - startedMs), sandbox: options.starter.name };
}

async function watched(child: Deno.ChildProcess, input: string, options: AgentRunOptions): Promise<Ended> {
  const limit = STARTED_MARK.length + MAX_RESULT_BYTES;
  const stdout = new PipeReader(child.stdout, { keep: "head", limit });
  const stderr = new PipeReader(child.stderr, { keep: "tail", limit: OUTPUT_TAIL_BYTES });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, options.timeoutMs);
  const abort = () => killGroup(child);
  options.signal?.addEventListener("abort", abort);
  try {
    await feed(child, input);
    const status = await child.status;
    killGroup(child); // whatever the agent started and left running
    await Promise.all([stdout.done(PIPE_GRACE_MS), stderr.done(PIPE_GRACE_MS)]);
    options.signal?.throwIfAborted();
    return { stdout, output: stderr.text(), status, timedOut };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", abort);
  }
}

async function feed(child: Deno.ChildProcess, input: string): Promise<void> {
  const writer = child.stdin.getWriter();
  // A runner that exits before reading (killed at once) closes the pipe: nothing to report here.
  await writer.write(new TextEncoder().encode(input)).catch(() => {});
  await writer.close().catch(() => {});
}

/** The agent's result or failure; throws `RunnerFailure` when the run never reached the agent. */
function judge(ended: Ended, memoryExceeded: boolean, timeoutMs: number): Judged {
  const { stdout, output, status, timedOut } = ended;
  const text = stdout.text();
  const last = output.trimEnd().split("\n").at(-1) ?? "";
  const how = status.signal ? `signal ${status.signal}` : `exit code ${status.code}`;
  if (!text.startsWith(STARTED_MARK)) {
    const why = timedOut ? `not started within ${timeoutMs} ms` : how;
    throw new RunnerFailure(`The run did not reach the agent (${why})${last ? `: ${last}` : ""}`);
  }
  if (timedOut) return failed("Timeout", `the run exceeded ${timeoutMs} ms and was killed`);
  if (stdout.truncated) return failed("ResultTooLarge", `the result exceeds ${MAX_RESULT_BYTES} bytes`);
  let envelope: unknown;
  try {
    envelope = JSON.parse(text.slice(STARTED_MARK.length));
  } catch {
    if (memoryExceeded) return failed("MemoryLimit", "the run exceeded its memory limit and was killed");
    return failed(
      "NoResult",
      `the agent's process ended without a result (${how})${last ? `: ${last}` : ""}`,
    );
  }
  return fromEnvelope(envelope);
}

function fromEnvelope(envelope: unknown): Judged {
  if (envelope === null || typeof envelope !== "object") {
    return failed("NoResult", "the agent's process wrote something else than the runner's answer");
  }
  const { ok, result, error } = envelope as { ok?: unknown; result?: unknown; error?: Partial<RunError> };
  if (ok !== true) return failed(String(error?.type ?? "AgentError"), String(error?.message ?? ""));
  if (!nestsAtMost(result, MAX_RESULT_DEPTH)) {
    return failed("ResultTooDeep", `the result nests more than ${MAX_RESULT_DEPTH} levels deep`);
  }
  return { ok: true, result };
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
