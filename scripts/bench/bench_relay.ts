/**
 * Benchmark of a run's LLM relay (docs/agents.md, "LLM calls"): the latency it adds to one call
 * over the validator signing the same call to the gateway's validator completions route itself.
 * The route is a local fake answering like the gateway (`world/relay_world.ts`), so that the figure
 * is the relay's alone, not the service's billing of the call. Each round makes BENCH_CALLS calls
 * one after another each way — direct, through the relay with `node:http`, through the relay from
 * Python's `forecasting_gateway` — after a warm-up; the figures are medians over the rounds of each
 * round's p50 and p99, and of the added p50 and p99 (relay minus direct, within the round).
 *
 *   deno task bench:relay      (BENCH_ROUNDS=5 BENCH_CALLS=200 BENCH_PYTHON=/usr/bin/python3)
 */
import { startRelayWorld } from "./world/relay_world.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);
const CALLS = Number(Deno.env.get("BENCH_CALLS") ?? 200);
const PYTHON = Deno.env.get("BENCH_PYTHON") ?? "/usr/bin/python3";
const WARM_UP_CALLS = 50;

type Way = "direct" | "relay (node:http)" | "relay (Python)";
const WAYS: readonly Way[] = ["direct", "relay (node:http)", "relay (Python)"];

interface Round {
  p50: Record<Way, number>;
  p99: Record<Way, number>;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

function byWay(value: (way: Way) => number): Record<Way, number> {
  return {
    direct: value("direct"),
    "relay (node:http)": value("relay (node:http)"),
    "relay (Python)": value("relay (Python)"),
  };
}

async function sequential(count: number, call: () => Promise<number>): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) latencies.push(await call());
  return latencies;
}

async function main(): Promise<void> {
  const world = await startRelayWorld({ python: PYTHON });
  try {
    await sequential(WARM_UP_CALLS, world.direct);
    await sequential(WARM_UP_CALLS, world.viaRelay);
    await world.viaPython(WARM_UP_CALLS);
    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const latencies: Record<Way, number[]> = {
        direct: await sequential(CALLS, world.direct),
        "relay (node:http)": await sequential(CALLS, world.viaRelay),
        "relay (Python)": await world.viaPython(CALLS),
      };
      const at = (p: number) => byWay((way) => percentile(latencies[way], p));
      rounds.push({ p50: at(0.5), p99: at(0.99) });
    }
    report(rounds);
  } finally {
    await world.close();
  }
}

function report(rounds: readonly Round[]): void {
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  console.log(`${ROUNDS} rounds of ${CALLS} sequential calls each way; medians over the rounds`);
  console.log("way                 p50        p99        added p50  added p99");
  for (const way of WAYS) {
    const p50 = median(rounds.map((round) => round.p50[way]));
    const p99 = median(rounds.map((round) => round.p99[way]));
    const added50 = median(rounds.map((round) => round.p50[way] - round.p50.direct));
    const added99 = median(rounds.map((round) => round.p99[way] - round.p99.direct));
    const added = way === "direct" ? "" : `${ms(added50).padEnd(11)}${ms(added99)}`;
    console.log(`${way.padEnd(20)}${ms(p50).padEnd(11)}${ms(p99).padEnd(11)}${added}`);
  }
}

if (import.meta.main) await main();
