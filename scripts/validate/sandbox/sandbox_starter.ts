/**
 * Starts runs in the sandbox (docs/agents.md, "Running agents safely"): makes the run's cgroups,
 * then has `launcher.py` (the system interpreter, on the host) join them, set the limits, drop to
 * the agent user and become bubblewrap, which runs `agent_runner.py` inside. When the run has
 * ended, whatever is left in its cgroups is killed and they are removed.
 */
import { fileURLToPath } from "node:url";
import {
  RUNNER_SCRIPT,
  type RunOptions,
  type RunStarter,
  spawnRun,
  type StartedRun,
} from "../run_starter.ts";
import { launcherArgs, launcherPlan } from "./launcher_plan.ts";
import { makeRelaySocketDir } from "./relay_socket_dir.ts";
import { RunCgroup } from "./run_cgroup.ts";
import { INSIDE } from "./run_limits.ts";
import { type SandboxHost, sandboxName } from "./sandbox_host.ts";

const LAUNCHER = fileURLToPath(new URL("./launcher.py", import.meta.url));
/** Most files copied from the library directory. */
const MAX_LIB_FILES = 256;

export interface SandboxOptions {
  /** A host directory copied read-only to `/run/fgw/lib`, first on the agent's import path. */
  libDir?: string;
}

/**
 * Run cgroups are named `run-<pid>-<tag>-<n>`: the pid tells a stopped validator's apart, the tag
 * this module's from another copy's in the same process (a test worker).
 */
const TAG = crypto.randomUUID().slice(0, 8);
let runs = 0;

export function sandboxStarter(host: SandboxHost, options: SandboxOptions = {}): RunStarter {
  // The files every run gets copied in, listed once (at the first run) rather than once a run.
  let listed: Promise<[string, string][]> | null = null;
  const copies = () =>
    listed ??= libCopies(options.libDir).then(
      (lib): [string, string][] => [[RUNNER_SCRIPT, INSIDE.runner], ...lib],
      (error) => {
        listed = null; // listed again at the next run
        throw error;
      },
    );
  return {
    name: sandboxName(host),
    start: async (run) => startSandboxed(host, await copies(), run),
    relaySocketDir: () => makeRelaySocketDir(host),
  };
}

async function startSandboxed(
  host: SandboxHost,
  copies: [string, string][],
  run: RunOptions,
): Promise<StartedRun> {
  const slot = runs++;
  const name = `run-${Deno.pid}-${TAG}-${slot}`;
  if (run.relaySocket !== undefined && host.user !== null) {
    await Deno.chown(run.relaySocket, host.user.uid, host.user.gid); // the agent user connects to it
  }
  const cgroup = host.cgroups ? await RunCgroup.create(host.cgroups, name) : null;
  const plan = launcherPlan({
    host,
    cgroupProcs: cgroup?.procsFiles ?? [],
    slot,
    copies,
    ...(run.relaySocket === undefined ? {} : { relaySocket: run.relaySocket }),
  });
  try {
    const child = spawnRun(host.python, ["-I", "-S", "-B", LAUNCHER, ...launcherArgs(plan)]);
    const finish = async () => {
      const memoryExceeded = await cgroup?.memoryExceeded() ?? false;
      await cgroup?.destroy();
      return { memoryExceeded };
    };
    return { child, finish };
  } catch (error) {
    await cgroup?.destroy();
    throw error;
  }
}

/** [host file, path inside] for every file under `libDir` (caches left out). */
async function libCopies(libDir: string | undefined): Promise<[string, string][]> {
  if (libDir === undefined) return [];
  const copies: [string, string][] = [];
  const walk = async (dir: string, inside: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.name === "__pycache__") continue;
      if (entry.isDirectory) await walk(`${dir}/${entry.name}`, `${inside}/${entry.name}`);
      else if (entry.isFile) copies.push([`${dir}/${entry.name}`, `${inside}/${entry.name}`]);
      if (copies.length > MAX_LIB_FILES) {
        throw new RangeError(`${libDir} holds more than ${MAX_LIB_FILES} files`);
      }
    }
  };
  await walk(libDir, INSIDE.lib);
  return copies;
}
