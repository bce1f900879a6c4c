/**
 * One run of the demo (docs/getting_started.md, "Demo"): the service, the accounts, the
 * validator, the seeded resolutions and the board watch, until stopped; then everything is
 * stopped in turn and the temporary folder removed.
 */
import { setTimeout as delay } from "node:timers/promises";
import { jsonLogger } from "../../actors/kernel/mod.ts";
import { setUpAccounts } from "./demo_accounts.ts";
import { boardTable, caughtUp, fetchBoard, scoredAboveZero } from "./demo_board.ts";
import { DEMO_MINERS, SHOWN_MINER } from "./demo_miners.ts";
import type { DemoOptions } from "./demo_options.ts";
import { secondsSinceStart, setUpLines } from "./demo_report.ts";
import { currentPool, type DemoMarket, resolveOnSchedule } from "./demo_resolver.ts";
import { DEFAULT_PLAN, pickMarkets } from "./demo_schedule.ts";
import { type DemoService, startDemoService } from "./demo_service.ts";
import { type RunCounts, runValidator } from "./demo_validator.ts";

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
  try {
    io.out(`Forecasting Gateway demo, seed ${options.seed}: starting the service…`);
    demo = await startDemoService({ dataDir: `${folder}/data`, port: options.port, log: jsonLogger("warn") });
    return await runLoop(demo, { options, folder, out: io.out, stop });
  } catch (error) {
    if (stop.signal.aborted) return 0;
    io.out(messageOf(error));
    return 1;
  } finally {
    stop.abort();
    io.signal.removeEventListener("abort", stopDemo);
    await demo?.close().catch((error) => io.out(`Cannot close the service: ${messageOf(error)}`));
    await Deno.remove(folder, { recursive: true })
      .then(() => io.out(`Stopped; ${folder} removed.`))
      .catch((error) => io.out(`Stopped; cannot remove ${folder}: ${messageOf(error)}`));
  }
}

/**
 * Makes the accounts, then runs the validator, the resolutions and the board watch until `stop`
 * aborts or the validator or the resolutions fail; stops them all before it returns the status.
 */
async function runLoop(
  demo: DemoService,
  at: { options: DemoOptions; folder: string; out(line: string): void; stop: AbortController },
): Promise<number> {
  const { options, out, stop } = at;
  await whenReady(demo, stop.signal);
  const schedule = pickMarkets(options.seed, currentPool(demo.service, Date.now()), DEFAULT_PLAN);
  const accounts = await setUpAccounts(demo, { miners: DEMO_MINERS, seed: options.seed });
  const report = {
    ...options,
    ...demo,
    ...accounts,
    folder: at.folder,
    miners: DEMO_MINERS,
    shownMiner: SHOWN_MINER,
    schedule,
  };
  for (const line of setUpLines(report)) out(line);
  const counts: RunCounts = {};
  const runs = { out, signal: stop.signal, miners: DEMO_MINERS };
  const validator = runValidator({ ...runs, base: demo.base, concurrency: options.concurrency }, counts);
  const resolved = resolveOnSchedule(schedule, {
    ...runs,
    assignments: demo.service.storage.assignments,
    markets: demo.markets,
    miners: DEMO_MINERS.map((miner) => miner.signer.hotkey),
    snapshot: (eventId, nowMs) => demo.service.predictions.snapshotJob.snapshotEvents([eventId], nowMs),
    seed: options.seed,
  }).then(() => stopped(stop.signal), (error) => ({ failure: `cannot resolve: ${messageOf(error)}` }));
  const watched = watchBoard(demo.base, { ...runs, schedule, counts });
  const ended = await Promise.race([validator, resolved, stopped(stop.signal)]);
  if (ended?.failure) out(`Stopping: ${ended.failure}`);
  stop.abort();
  await Promise.allSettled([validator, resolved, watched]);
  return ended?.failure ? 1 : 0;
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
