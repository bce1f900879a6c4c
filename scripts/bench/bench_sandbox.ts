/**
 * Benchmark: what the agent sandbox costs (docs/benchmarks.md, "Agent sandbox"). Sandboxed and bare
 * runs of the same system interpreter in one run, alternating, `BENCH_ROUNDS` rounds (default 7,
 * at least 5), medians:
 * 1. the example agent: a run's wall time sandboxed and bare, and the time the sandbox adds;
 * 2. a CPU-bound agent (about 1 s of pure Python): sandboxed / bare, of the run and of its compute;
 * 3. 8 example runs at once on this machine: all complete with their own result, time added per run;
 * 4. fairness: 4 agents spinning 64 threads beside 4 example agents, all sandboxed: the examples
 *    finish inside their limit.
 * Prints figures; asserts nothing.
 */
import {
  CPU_AGENT,
  EXAMPLE_AGENT,
  median,
  openSandboxWorld,
  type SandboxWorld,
  SPINNER_AGENT,
  timedRun,
} from "./world/sandbox_world.ts";
import type { RunStarter } from "../validate/run_starter.ts";
import { runAgent } from "../validate/agent_run.ts";

const ROUNDS = Math.max(5, Number(Deno.env.get("BENCH_ROUNDS") ?? 7));
/** A run's limit where it is meant to finish: generous, so that a slow run is measured, not cut. */
const LIMIT_MS = 120_000;
const CONCURRENT = 8;
const SPINNERS = 4;
/** The spinners' limit: they run until killed at it. */
const SPIN_LIMIT_MS = 8_000;

const ms = (value: number) => `${value.toFixed(0)} ms`;
const loadAverage = () => Deno.loadavg().map((value) => value.toFixed(1)).join(" ");

async function exampleRuns(world: SandboxWorld): Promise<void> {
  const walls = { sandboxed: [] as number[], bare: [] as number[] };
  await timedRun(EXAMPLE_AGENT, world.sandboxed, LIMIT_MS); // warm-up: caches, cgroup folders
  await timedRun(EXAMPLE_AGENT, world.bare, LIMIT_MS);
  for (let round = 0; round < ROUNDS; round++) {
    walls.sandboxed.push((await timedRun(EXAMPLE_AGENT, world.sandboxed, LIMIT_MS)).ms);
    walls.bare.push((await timedRun(EXAMPLE_AGENT, world.bare, LIMIT_MS)).ms);
  }
  const [sandboxed, bare] = [median(walls.sandboxed), median(walls.bare)];
  console.log(
    `1. example agent, one run: sandboxed ${ms(sandboxed)}, bare ${ms(bare)}, ` +
      `added ${ms(sandboxed - bare)} (target ≤ 100 ms)`,
  );
}

async function cpuRuns(world: SandboxWorld): Promise<void> {
  const figures = {
    sandboxed: { wall: [] as number[], compute: [] as number[] },
    bare: { wall: [] as number[], compute: [] as number[] },
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, starter] of [["sandboxed", world.sandboxed], ["bare", world.bare]] as const) {
      const { ms: wall, outcome } = await timedRun(CPU_AGENT, starter, LIMIT_MS);
      figures[name].wall.push(wall);
      if (outcome.ok) figures[name].compute.push((outcome.result as { computeMs: number }).computeMs);
    }
  }
  const wall = median(figures.sandboxed.wall) / median(figures.bare.wall);
  const compute = median(figures.sandboxed.compute) / median(figures.bare.compute);
  console.log(
    `2. CPU-bound agent: run sandboxed ${ms(median(figures.sandboxed.wall))}, bare ` +
      `${ms(median(figures.bare.wall))}, ratio ${wall.toFixed(3)}×; its compute alone ${
        compute.toFixed(3)
      }× ` +
      "(target ≤ 1.1×)",
  );
}

/** `count` example runs at once, each on its own event; their wall times and how many returned their own event. */
async function atOnce(starter: RunStarter, count: number): Promise<{ walls: number[]; own: number }> {
  const runs = Array.from({ length: count }, async (_, index) => {
    const event = {
      id: `run-${index}`,
      question: `run ${index}`,
      outcomes: [{ outcomeId: "a" }, { outcomeId: "b" }],
    };
    const started = performance.now();
    const outcome = await runAgent(EXAMPLE_AGENT, event, { starter, timeoutMs: LIMIT_MS });
    const question = outcome.ok
      ? (outcome.result as { reasoning: { question: string } }).reasoning.question
      : null;
    return { wall: performance.now() - started, own: question === event.question };
  });
  const done = await Promise.all(runs);
  return { walls: done.map((run) => run.wall), own: done.filter((run) => run.own).length };
}

async function concurrentRuns(world: SandboxWorld): Promise<void> {
  const sandboxed: number[] = [];
  const bare: number[] = [];
  let own = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const boxed = await atOnce(world.sandboxed, CONCURRENT);
    sandboxed.push(median(boxed.walls));
    own += boxed.own;
    bare.push(median((await atOnce(world.bare, CONCURRENT)).walls));
  }
  const total = ROUNDS * CONCURRENT;
  console.log(
    `3. ${CONCURRENT} example runs at once: ${own}/${total} sandboxed runs returned their own result; ` +
      `per run sandboxed ${ms(median(sandboxed))}, bare ${ms(median(bare))}, added ${
        ms(median(sandboxed) - median(bare))
      }`,
  );
}

async function fairness(world: SandboxWorld): Promise<void> {
  const examples: number[] = [];
  let finished = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const spinners = Array.from(
      { length: SPINNERS },
      () => timedRun(SPINNER_AGENT, world.sandboxed, SPIN_LIMIT_MS),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the spinners are spinning
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => timedRun(EXAMPLE_AGENT, world.sandboxed, LIMIT_MS)),
    );
    for (const run of runs) {
      examples.push(run.ms);
      if (run.outcome.ok) finished++;
    }
    await Promise.all(spinners);
  }
  console.log(
    `4. fairness: beside ${SPINNERS} agents spinning 64 threads, ${finished}/${examples.length} example ` +
      `runs finished inside their limit; median ${ms(median(examples))}, slowest ${
        ms(Math.max(...examples))
      }`,
  );
}

if (import.meta.main) {
  const world = await openSandboxWorld();
  try {
    const limits = world.host.cgroups ? `cgroup v${world.host.cgroups.version}` : "rlimits";
    console.log(
      `bench:sandbox — bubblewrap ${world.host.bwrapVersion}, limits by ${limits}, ` +
        `${navigator.hardwareConcurrency} CPUs, ${ROUNDS} rounds, medians`,
    );
    await exampleRuns(world);
    await cpuRuns(world);
    await concurrentRuns(world);
    await fairness(world);
    console.log(
      `load average at the end ${loadAverage()} (sandboxed runs have a lower priority than bare ones: ` +
        "on a busy host they get less CPU, by design)",
    );
  } finally {
    await world.close();
  }
}
