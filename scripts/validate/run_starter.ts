/**
 * How a run's process is started: in the sandbox (`sandbox/sandbox_starter.ts`, the default) or,
 * for trusted code only, bare (`bare_starter.ts`, `--unsafe-no-sandbox`). Either way the process
 * runs `agent_runner.py`, which reads the code and the event on stdin, writes the "started" mark
 * and the envelope on stdout and the agent's output on stderr (docs/agents.md, "Running agents
 * safely").
 */
import { fileURLToPath } from "node:url";

/** The runner script, on the host. */
export const RUNNER_SCRIPT = fileURLToPath(new URL("./agent_runner.py", import.meta.url));

/** What `agent_runner.py` writes on the result channel before it loads `agent.py`. */
export const STARTED_MARK = "fgw-runner-started\n";

/** A run's process, started. */
export interface StartedRun {
  /** Leads its own process group; stdin, stdout and stderr piped. */
  child: Deno.ChildProcess;
  /** Once the process has ended: removes what the run left; whether it ran out of memory. */
  finish(): Promise<{ memoryExceeded: boolean }>;
}

export interface RunOptions {
  /** The host path of the run's LLM relay socket (`/run/fgw/relay.sock` inside the sandbox). */
  relaySocket?: string;
}

/**
 * Spawns a run's process the one way every starter does: an empty environment, stdin, stdout and
 * stderr piped (`agent_run.ts` feeds and reads them).
 */
export function spawnRun(command: string, args: string[], options: { cwd?: string } = {}): Deno.ChildProcess {
  return new Deno.Command(command, {
    args,
    ...options,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

export interface RunStarter {
  /** The runner's name and version (`executionMetadata.sandbox`), e.g. "bubblewrap 0.8.0". */
  readonly name: string;
  /** Starts one run's process; rejects when it cannot (the validator's failure, not the agent's). */
  start(options: RunOptions): Promise<StartedRun>;
  /**
   * A fresh folder for one run's LLM relay socket, reachable by the user the run's process has
   * (the relay removes it when it closes).
   */
  relaySocketDir(): Promise<string>;
}
