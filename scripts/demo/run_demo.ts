/**
 * One run of the demo (docs/getting_started.md, "Demo"): the service, the accounts, the
 * validator, the seeded resolutions and the board watch, until stopped; then everything is
 * stopped in turn and the temporary folder removed.
 */
import { setTimeout as delay } from "node:timers/promises";
import { jsonLogger } from "../../actors/kernel/mod.ts";
import { setUpAccounts } from "./demo_accounts.ts";
import { boardTable, caughtUp, fetchBoard, scoredAboveZero } from "./demo_board.ts";
import { DEMO_MINERS } from "./demo_miners.ts";
import type { DemoOptions } from "./demo_options.ts";
import { secondsSinceStart, setUpLines } from "./demo_report.ts";
import { currentPool, type DemoMarket, resolveOnSchedule } from "./demo_resolver.ts";
import { DEFAULT_PLAN, pickMarkets } from "./demo_schedule.ts";
import { type DemoService, startDemoService } from "./demo_service.ts";
import { type RunCounts, runValidator, type ValidatorEnd } from "./demo_validator.ts";

/** How long the service may take to load its catalog and metagraph. */
const READY_WITHIN_MS = 60_000;
/** How often the board is read while the demo watches it. */
const WATCH_MS = 1_000;

export interface DemoIo {
  out(line: string): void;
  /** Aborted to stop the demo (SIGINT, SIGTERM). */
  signal: AbortSignal;
}

/** Runs the demo until `io.signal` aborts or something it runs fails; the exit status. */
export async function runDemo(options: DemoOptions, io: DemoIo): Promise<number> {
  const folder = await Deno.makeTempDir({ prefix: "fgw-demo-" });
  const stop = new AbortController();
  const stopDemo = () => stop.abort();
  io.signal.addEventListener("abort", stopDemo, { once: true });
  let demo: DemoService | null = null;
  let validator: Promise<ValidatorEnd> | null = null;
  let resolver: Promise<void> | null = null;
  try {
    io.out(`Forecasting Gateway demo, seed ${options.seed}: starting the service…`);
    demo = await startDemoService({ dataDir: `${folder}/data`, port: options.port, log: jsonLogger("warn") });
    await whenReady(demo, stop.signal);
    const schedule = pickMarkets(options.seed, currentPool(demo.service, Date.now()), DEFAULT_PLAN);
    const accounts = await setUpAccounts(demo, { miners: DEMO_MINERS, seed: options.seed });
    for (
      const line of setUpLines({ ...options, ...demo, ...accounts, folder, miners: DEMO_MINERS, schedule })
    ) {
      io.out(line);
    }
    const counts: RunCounts = {};
    const runs = { ...io, signal: stop.signal };
    validator = runValidator({
      ...runs,
      base: demo.base,
      concurrency: options.concurrency,
      miners: DEMO_MINERS,
    }, counts);
    resolver = resolveOnSchedule(schedule, {
      ...runs,
      assignments: demo.service.storage.assignments,
      markets: demo.markets,
      miners: DEMO_MINERS.map((miner) => miner.signer.hotkey),
      seed: options.seed,
    });
    const watched = watchBoard(demo.base, { ...runs, schedule, counts });
    const ended = await Promise.race([validator, stopped(stop.signal)]);
    if (ended?.failure) io.out(`Stopping: ${ended.failure}`);
    stop.abort();
    await watched;
    return ended?.failure ? 1 : 0;
  } catch (error) {
    if (stop.signal.aborted) return 0;
    io.out(error instanceof Error ? error.message : String(error));
    return 1;
  } finally {
    stop.abort();
    io.signal.removeEventListener("abort", stopDemo);
    await Promise.allSettled([validator, resolver]);
    await demo?.close();
    await Deno.remove(folder, { recursive: true });
    io.out(`Stopped; ${folder} removed.`);
  }
}

/** Resolves once the service serves its catalog and has synced the demo metagraph. */
async function whenReady(demo: DemoService, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  while (
    !(await demo.service.catalog.ready()) || demo.service.metagraph.view.status(Date.now()) !== "fresh"
  ) {
    signal.throwIfAborted();
    if (Date.now() > deadline) throw new Error("The service did not get ready within a minute");
    await delay(100);
  }
}

/**
 * Reads the board every second: says when a score first rises above 0 (and how long that took),
 * then prints the board once every resolved market is scored.
 */
async function watchBoard(
  base: string,
  at: { out(line: string): void; signal: AbortSignal; schedule: readonly DemoMarket[]; counts: RunCounts },
): Promise<void> {
  let firstSeen = false;
  while (!at.signal.aborted) {
    await delay(WATCH_MS, undefined, { signal: at.signal }).catch(() => {});
    const board = await fetchBoard(base, at.signal).catch(() => null);
    if (board === null) continue;
    const above = scoredAboveZero(board, DEMO_MINERS);
    if (!firstSeen && above.length > 0) {
      firstSeen = true;
      const scores = above.map(({ miner, row }) => `uid ${miner.uid} (${miner.agent}) ${row.scoring.score}`);
      at.out(`First non-zero score after ${secondsSinceStart()} s: ${scores.join(", ")}`);
    }
    if (caughtUp(board, DEMO_MINERS, at.schedule.length)) {
      const runs = Object.entries(at.counts).map(([outcome, n]) => `${n} ${outcome}`).join(", ");
      at.out(
        `\nThe board after all ${at.schedule.length} markets (${secondsSinceStart()} s; validator runs: ${runs}):`,
      );
      for (const line of boardTable(board, DEMO_MINERS)) at.out(`  ${line}`);
      if (!firstSeen) at.out("No miner beat the market on these markets: try another --seed.");
      at.out(
        "The validator goes on predicting the open markets (their consensus: the key above). Ctrl-C stops.",
      );
      return;
    }
  }
}

/** Resolves (with null) when `signal` aborts. */
function stopped(signal: AbortSignal): Promise<null> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(null);
    else signal.addEventListener("abort", () => resolve(null), { once: true });
  });
}
