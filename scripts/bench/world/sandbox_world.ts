/**
 * What `deno task bench:sandbox` measures with: the host's sandbox (checked as the validator checks
 * it), bare runs with the same system interpreter, the agents, and one timed run. The figures are
 * the benchmark's (scripts/bench/bench_sandbox.ts).
 */
import { fileURLToPath } from "node:url";
import { type AgentOutcome, runAgent } from "../../validate/agent_run.ts";
import { bareStarter } from "../../validate/bare_starter.ts";
import { RUNNER_SCRIPT, type RunStarter, spawnRun } from "../../validate/run_starter.ts";
import {
  checkSandboxHost,
  releaseCgroups,
  RUN_LIMITS,
  type SandboxHost,
  sandboxStarter,
} from "../../validate/sandbox/mod.ts";
import { RunCgroup } from "../../validate/sandbox/run_cgroup.ts";

export const PYTHON = "/usr/bin/python3";

export const EXAMPLE_AGENT = await Deno.readTextFile(
  fileURLToPath(new URL("../../../docs/examples/agent_example.py", import.meta.url)),
);

/** About a second of pure Python on this machine's class (it reports its own compute time). */
export const CPU_AGENT = `import time
def agent_main(event):
    started = time.perf_counter()
    cpu = time.process_time()
    total = 0
    for i in range(12_000_000):
        total += i * i % 7
    return {
        "computeMs": (time.perf_counter() - started) * 1000,
        "cpuMs": (time.process_time() - cpu) * 1000,
        "total": total,
    }
`;

/** 64 threads spinning (as many as the run's limit lets start) until the run is killed. */
export const SPINNER_AGENT = `import threading
def spin():
    while True:
        pass
def agent_main(event):
    for _ in range(64):
        try:
            threading.Thread(target=spin, daemon=True).start()
        except RuntimeError:
            break
    spin()
`;

export const EVENT = {
  id: "bench",
  question: "Is the sandbox cheap?",
  outcomes: [{ outcomeId: "yes", name: "Yes" }, { outcomeId: "no", name: "No" }],
  currentOutcomePrices: { yes: 0.4, no: 0.6 },
};

export interface SandboxWorld {
  host: SandboxHost;
  sandboxed: RunStarter;
  bare: RunStarter;
  /** Bare, but at a sandboxed run's priority: in a run cgroup of its own, nice 10. */
  bareLow: RunStarter;
  close(): Promise<void>;
}

export async function openSandboxWorld(): Promise<SandboxWorld> {
  const check = await checkSandboxHost({ python: PYTHON, path: Deno.env.get("PATH") ?? "/usr/bin:/bin" });
  if (!check.ok) {
    throw new Error(`The sandbox cannot run here: ${check.problems.map((p) => p.missing).join("; ")}`);
  }
  const { host } = check;
  return {
    host,
    sandboxed: sandboxStarter(host),
    bare: bareStarter({ python: PYTHON }),
    bareLow: bareAtRunPriority(host),
    close: () => host.cgroups ? releaseCgroups(host.cgroups) : Promise.resolve(),
  };
}

/**
 * Bare runs with a sandboxed run's CPU priority (the same kind of cgroup, the same nice value), so
 * that what a sandboxed run adds can be told from what its lower priority costs on a busy host.
 */
function bareAtRunPriority(host: SandboxHost): RunStarter {
  let runs = 0;
  return {
    name: "bare, at a run's priority",
    start: async () => {
      const dir = await Deno.makeTempDir({ prefix: "fgw-bench-" });
      const cgroup = host.cgroups
        ? await RunCgroup.create(host.cgroups, `run-${Deno.pid}-bench-${runs++}`)
        : null;
      const joins = (cgroup?.procsFiles ?? []).map((file) => `echo $$ > ${file}; `).join("");
      const script = `${joins}exec nice -n ${RUN_LIMITS.nice} ${PYTHON} -I -S -B "$0"`;
      const child = spawnRun("/bin/sh", ["-c", script, RUNNER_SCRIPT], { cwd: dir });
      const finish = async () => {
        await cgroup?.destroy();
        await Deno.remove(dir, { recursive: true });
        return { memoryExceeded: false };
      };
      return { child, finish };
    },
    relaySocketDir: () => Deno.makeTempDir({ prefix: "fgw-relay-" }),
  };
}

export interface TimedRun {
  /** Wall-clock time of the whole run, as the validator sees it. */
  ms: number;
  outcome: AgentOutcome;
}

export async function timedRun(code: string, starter: RunStarter, timeoutMs: number): Promise<TimedRun> {
  const started = performance.now();
  const outcome = await runAgent(code, EVENT, { starter, timeoutMs });
  return { ms: performance.now() - started, outcome };
}

export function median(values: readonly number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
