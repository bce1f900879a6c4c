/**
 * `deno task validate --loop`: the reference validator as a service (docs/agents.md, "Running
 * continuously"). It leases while fewer than `concurrency` runs are in progress; when none is
 * available (or a lease request fails) it waits 1 s, doubling up to 30 s, until one is leased
 * again. Each run ends in one JSON line on `out`. When `signal` aborts it leases no more; the runs
 * in progress may finish within `stopGraceMs`, then are killed and nothing is submitted for them.
 */
import { FailureBackoff } from "../../actors/runtime/mod.ts";
import { freshProgress, type RunProgress } from "./relayed_run.ts";
import type { LeasedAssignment } from "./validator_submission.ts";
import { leaseAssignment, runLeased, type ValidateDeps } from "./validator_turn.ts";
import { waitAtMost } from "./wait_at_most.ts";

/** The first wait after `none_available`, and the longest. */
const FIRST_WAIT_MS = 1_000;
const LONGEST_WAIT_MS = 30_000;

export interface ServiceSettings {
  concurrency: number;
  stopGraceMs: number;
}

/** Where the service writes, what stops it, and how it waits (tests inject a sleeper). */
export interface ServiceIo {
  out(line: string): void;
  err(line: string): void;
  /** Aborted to stop the service (SIGTERM, SIGINT). */
  signal: AbortSignal;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** How a run ended, as its log line says. */
export type RunOutcome = "submitted" | "failed_run" | "killed" | "not_run" | "run_error" | "submit_failed";

/** A run's failure by how far it got (see `RunProgress`). */
const FAILED_AT: Record<RunProgress["stage"], RunOutcome> = {
  verifying: "not_run",
  running: "run_error",
  submitting: "submit_failed",
  done: "submit_failed",
};

/** Runs the service until `io.signal` aborts and the runs in progress have ended. */
export async function serveValidator(
  deps: ValidateDeps,
  settings: ServiceSettings,
  io: ServiceIo,
): Promise<void> {
  const kill = new AbortController();
  const runDeps = { ...deps, run: { ...deps.run, signal: kill.signal } };
  const runs = new Set<Promise<void>>();
  const backoff = new FailureBackoff(LONGEST_WAIT_MS, { retryBaseMs: FIRST_WAIT_MS });
  const stopped = new Promise<void>((resolve) => io.signal.addEventListener("abort", () => resolve()));
  while (!io.signal.aborted) {
    if (runs.size >= settings.concurrency) {
      await Promise.race([...runs, stopped]);
      continue;
    }
    const assignment = await nextLease(runDeps, io);
    if (assignment === null) {
      backoff.failed();
      await io.sleep(backoff.nextMs(), io.signal);
      continue;
    }
    backoff.succeeded();
    const run: Promise<void> = loggedRun(runDeps, assignment, { io, killed: kill.signal })
      .finally(() => runs.delete(run));
    runs.add(run);
  }
  await stopRuns(runs, kill, settings.stopGraceMs);
}

/** A leased assignment; null when none is available or the request failed (said on `err`). */
async function nextLease(deps: ValidateDeps, io: ServiceIo): Promise<LeasedAssignment | null> {
  try {
    return await leaseAssignment(deps, io.signal);
  } catch (error) {
    if (!io.signal.aborted) io.err(JSON.stringify({ event: "lease_failed", error: messageOf(error) }));
    return null;
  }
}

/** Runs and submits `assignment`, then writes its line, however it ended. */
async function loggedRun(
  deps: ValidateDeps,
  assignment: LeasedAssignment,
  at: { io: ServiceIo; killed: AbortSignal },
): Promise<void> {
  const progress = freshProgress();
  let outcome: RunOutcome;
  let error: string | null = null;
  try {
    const { failure } = await runLeased(deps, assignment, progress);
    outcome = failure ? "failed_run" : "submitted";
    if (failure) error = `${failure.type}: ${failure.message}`;
  } catch (thrown) {
    outcome = at.killed.aborted ? "killed" : FAILED_AT[progress.stage];
    error = messageOf(thrown);
  }
  const ended = { outcome, error, progress, sandbox: deps.run.starter.name, nowMs: deps.nowMs() };
  at.io.out(JSON.stringify(runLine(assignment, ended)));
}

/** The log line of one run (docs/agents.md, "Running continuously"). */
function runLine(
  assignment: LeasedAssignment,
  ended: { outcome: RunOutcome; error: string | null; progress: RunProgress; sandbox: string; nowMs: number },
) {
  const { llm, runtimeMs } = ended.progress;
  return {
    at: new Date(ended.nowMs).toISOString(),
    lease: assignment.agentPredictionId,
    miner: assignment.miner.hotkey,
    event: assignment.event.id,
    outcome: ended.outcome,
    runtimeMs,
    llmCalls: llm?.charged ?? 0,
    llmCostMicro: String(llm?.costMicro ?? 0n),
    sandbox: ended.sandbox,
    ...(ended.error === null ? {} : { error: ended.error }),
  };
}

/** Lets the runs finish for `graceMs`, then kills those left; resolves once all have ended. */
async function stopRuns(runs: Set<Promise<void>>, kill: AbortController, graceMs: number): Promise<void> {
  if (runs.size > 0 && graceMs > 0) {
    await waitAtMost(Promise.allSettled([...runs]), graceMs);
  }
  kill.abort(new Error("the validator is stopping"));
  await Promise.allSettled([...runs]);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
