/**
 * One run of a leased agent with its LLM relay (docs/agents.md, "LLM calls"): the relay is started
 * for the lease and its miner, its socket in a folder the run's user can reach (bound at
 * `/run/fgw/relay.sock` in the sandbox), the agent is told its socket, and when the run ends — returned,
 * failed, timed out or aborted — the relay is closed and the calls still in flight are abandoned
 * before anything is submitted.
 */
import { type AgentOutcome, type AgentRunOptions, runAgent } from "./agent_run.ts";
import { type RelayLimits, type RelayStats, startRelay } from "./relay/mod.ts";
import type { SigningDeps } from "./signed_fetch.ts";
import type { LeasedAssignment } from "./validator_submission.ts";

/** What a relayed run needs: the signing deps, the run's options, the relay's limits. */
export interface RelayedRunDeps extends SigningDeps {
  run: AgentRunOptions;
  relay?: Partial<RelayLimits>;
}

/** How far a run got, filled in as it goes: what a log line reports whatever the end. */
export interface RunProgress {
  stage: "verifying" | "running" | "submitting" | "done";
  /** The agent's run time, once it ended. */
  runtimeMs: number | null;
  /** The relay's tally, once it closed. */
  llm: RelayStats | null;
}

/** A run that has not started. */
export function freshProgress(): RunProgress {
  return { stage: "verifying", runtimeMs: null, llm: null };
}

/** Runs `code` on the assignment's event within `timeoutMs`, its LLM calls relayed for its lease. */
export async function relayedRun(
  deps: RelayedRunDeps,
  assignment: LeasedAssignment,
  at: { code: string; timeoutMs: number; progress: RunProgress },
): Promise<AgentOutcome> {
  at.progress.stage = "running";
  const relay = await startRelay({
    base: deps.base,
    signer: deps.signer,
    fetch: deps.fetch,
    nowMs: deps.nowMs,
    lease: { agentPredictionId: assignment.agentPredictionId, minerHotkey: assignment.miner.hotkey },
    ...(deps.relay ? { limits: deps.relay } : {}),
    socketDir: await deps.run.starter.relaySocketDir(),
  });
  try {
    const outcome = await runAgent(at.code, assignment.event, {
      ...deps.run,
      timeoutMs: at.timeoutMs,
      relaySocket: relay.socketPath,
    });
    at.progress.runtimeMs = outcome.runtimeMs;
    return outcome;
  } finally {
    at.progress.llm = await relay.close();
  }
}
