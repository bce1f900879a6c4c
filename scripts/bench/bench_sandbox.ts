/**
 * Benchmark: what the agent sandbox costs (docs/benchmarks.md, "Agent sandbox"). Sandboxed and bare
 * runs of the same system interpreter in one run, alternating, `BENCH_ROUNDS` rounds (default 7,
 * at least 5), medians:
 * 1. the example agent: a run's wall time sandboxed and bare, and the time the sandbox adds, also
 *    over a bare run at a sandboxed run's priority (on a busy host the lower priority costs more);
 * 2. a CPU-bound agent (about 1 s of pure Python): sandboxed / bare, of the run and of its compute,
 *    and over bare at the same priority;
 * 3. 8 example runs at once on this machine: all complete with their own result, time added per run;
 * 4. fairness: 4 agents spinning 64 threads beside 4 example agents, all sandboxed: the examples
 *    finish inside their limit, and a run's LLM relay keeps answering meanwhile (calls made through
 *    a relay to a local fake of the gateway route, one after another, the whole time: p99 < 50 ms).
 * Prints figures; asserts nothing.
 */
import {
  CPU_AGENT,
  EXAMPLE_AGENT,
  median,
  openSandboxWorld,
  PYTHON,
  type SandboxWorld,
  SPINNER_AGENT,
  timedRun,
} from "./world/sandbox_world.ts";
import type { RunStarter } from "../validate/run_starter.ts";
import { type RelayWorld, startRelayWorld } from "./world/relay_world.ts";
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

const STARTERS = ["sandboxed", "bare", "bareLow"] as const;
type Walls = Record<(typeof STARTERS)[number], number[]>;

async function exampleRuns(world: SandboxWorld): Promise<void> {
  const walls: Walls = { sandboxed: [], bare: [], bareLow: [] };
  for (const name of STARTERS) await timedRun(EXAMPLE_AGENT, world[name], LIMIT_MS); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of STARTERS) walls[name].push((await timedRun(EXAMPLE_AGENT, world[name], LIMIT_MS)).ms);
  }
  const [sandboxed, bare, bareLow] = STARTERS.map((name) => median(walls[name])) as [number, number, number];
  console.log(
    `1. example agent, one run: sandboxed ${ms(sandboxed)}, bare ${ms(bare)}, ` +
      `added ${ms(sandboxed - bare)} (target ≤ 100 ms); bare at a run's priority ${ms(bareLow)}, ` +
      `added over it ${ms(sandboxed - bareLow)}`,
  );
}

async function cpuRuns(world: SandboxWorld): Promise<void> {
  const walls: Walls = { sandboxed: [], bare: [], bareLow: [] };
  const computes: Walls = { sandboxed: [], bare: [], bareLow: [] };
  const cpus: Walls = { sandboxed: [], bare: [], bareLow: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of STARTERS) {
      const { ms: wall, outcome } = await timedRun(CPU_AGENT, world[name], LIMIT_MS);
      walls[name].push(wall);
      if (!outcome.ok) continue;
      const result = outcome.result as { computeMs: number; cpuMs: number };
      computes[name].push(result.computeMs);
      cpus[name].push(result.cpuMs);
    }
  }
  const ratio = (of: Walls, over: "bare" | "bareLow") => (median(of.sandboxed) / median(of[over])).toFixed(3);
  // Each round's runs follow one another: the ratio within a round shares the host's state of the
  // moment, which a ratio of medians over the whole run does not.
  const paired = (of: Walls, over: "bare" | "bareLow") =>
    median(of.sandboxed.map((value, i) => value / (of[over][i] ?? Number.NaN)).filter(Number.isFinite))
      .toFixed(3);
  console.log(
    `2. CPU-bound agent: run sandboxed ${ms(median(walls.sandboxed))}, bare ${ms(median(walls.bare))}, ` +
      `ratio ${ratio(walls, "bare")}× (its compute alone ${ratio(computes, "bare")}×; target ≤ 1.1×); ` +
      `over bare at a run's priority ${ratio(walls, "bareLow")}× (compute ${ratio(computes, "bareLow")}×)`,
  );
  console.log(
    `   median of each round's ratio: run ${paired(walls, "bare")}× over bare, ` +
      `${paired(walls, "bareLow")}× over bare at a run's priority; the agent's CPU time (process_time, ` +
      `not counting time the host gave to others) ${paired(cpus, "bare")}× over bare`,
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
  const walls: Walls = { sandboxed: [], bare: [], bareLow: [] };
  let own = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of STARTERS) {
      const runs = await atOnce(world[name], CONCURRENT);
      walls[name].push(median(runs.walls));
      if (name === "sandboxed") own += runs.own;
    }
  }
  const [sandboxed, bare, bareLow] = STARTERS.map((name) => median(walls[name])) as [number, number, number];
  console.log(
    `3. ${CONCURRENT} example runs at once: ${own}/${
      ROUNDS * CONCURRENT
    } sandboxed runs returned their own ` +
      `result; per run sandboxed ${ms(sandboxed)}, bare ${ms(bare)}, added ${ms(sandboxed - bare)}; ` +
      `bare at a run's priority ${ms(bareLow)}, added over it ${ms(sandboxed - bareLow)}`,
  );
}

/** Relay calls one after another until `running` settles; their latencies in ms. */
async function relayCallsWhile(relay: RelayWorld, running: Promise<unknown>): Promise<number[]> {
  let done = false;
  const stop = () => {
    done = true;
  };
  running.then(stop, stop);
  const latencies: number[] = [];
  while (!done) latencies.push(await relay.viaRelay());
  return latencies;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

async function fairness(world: SandboxWorld): Promise<void> {
  const examples: number[] = [];
  const relayP99s: number[] = [];
  let finished = 0;
  const relay = await startRelayWorld({ python: PYTHON });
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const spinners = Array.from(
        { length: SPINNERS },
        () => timedRun(SPINNER_AGENT, world.sandboxed, SPIN_LIMIT_MS),
      );
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // the spinners are spinning
      const runs = Promise.all(
        Array.from({ length: 4 }, () => timedRun(EXAMPLE_AGENT, world.sandboxed, LIMIT_MS)),
      );
      relayP99s.push(percentile(await relayCallsWhile(relay, runs), 0.99));
      for (const run of await runs) {
        examples.push(run.ms);
        if (run.outcome.ok) finished++;
      }
      await Promise.all(spinners);
    }
  } finally {
    await relay.close();
  }
  console.log(
    `4. fairness: beside ${SPINNERS} agents spinning 64 threads, ${finished}/${examples.length} example ` +
      `runs finished inside their limit; median ${ms(median(examples))}, slowest ${
        ms(Math.max(...examples))
      }; relay calls meanwhile p99 ${ms(median(relayP99s))} (median of the rounds; target < 50 ms)`,
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
