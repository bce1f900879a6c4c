/**
 * Runs without the sandbox (`--unsafe-no-sandbox`, for trusted code only): `agent_runner.py` in a
 * fresh temporary directory with an empty environment, as the validator's own user, with its
 * network and file system (docs/agents.md, "Without the sandbox").
 */
import { RUNNER_SCRIPT, type RunOptions, type RunStarter, spawnRun, type StartedRun } from "./run_starter.ts";

/** `executionMetadata.sandbox` of a run without the sandbox. */
export const NO_SANDBOX = "none (--unsafe-no-sandbox)";

export interface BareOptions {
  /** The interpreter (a command name or path). */
  python: string;
  /** A directory put first on the agent's import path (the `forecasting_gateway` module). */
  libDir?: string;
}

export function bareStarter(options: BareOptions): RunStarter {
  return {
    name: NO_SANDBOX,
    start: (run) => startBare(options, run),
    // The run has the validator's own user: a private folder of the validator's will do.
    relaySocketDir: () => Deno.makeTempDir({ prefix: "fgw-relay-" }),
  };
}

async function startBare(options: BareOptions, run: RunOptions): Promise<StartedRun> {
  const dir = await Deno.makeTempDir({ prefix: "fgw-agent-" });
  const args = [
    ...["-I", "-S", "-B", RUNNER_SCRIPT],
    ...(options.libDir === undefined ? [] : ["--lib", options.libDir]),
    ...(run.relaySocket === undefined ? [] : ["--relay-socket", run.relaySocket]),
  ];
  const remove = () => Deno.remove(dir, { recursive: true }).catch(() => {});
  try {
    const child = spawnRun(options.python, args, { cwd: dir });
    return { child, finish: async () => (await remove(), { memoryExceeded: false }) };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** How long the interpreter check may take. */
const CHECK_TIMEOUT_MS = 10_000;

/**
 * Throws unless `python` runs the agent runner (the validator's start-up check: a missing or
 * broken interpreter is the validator's fault, never a miner's failed run).
 */
export async function checkPython(python: string): Promise<void> {
  const command = new Deno.Command(python, {
    args: ["-I", "-S", RUNNER_SCRIPT, "--check"],
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
    throw new Error(
      `${python} cannot run the agent runner (${RUNNER_SCRIPT}): ${stderr || `exit ${output.code}`}`,
    );
  }
}
