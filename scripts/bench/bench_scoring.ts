/**
 * Benchmark (`deno task bench:scoring`): scoring 1,000,000 predictions over 20,000 events and 256
 * miners, with time and peak RSS, each part in its own process so each peak is its own:
 *
 * 1. `pure`: the streaming scorer v1 (`ScorerV1Stream`, the API the job's steps are made of)
 *    over the world fed one event at a time (each event's predictions made just before it is
 *    scored; their making time is shown apart).
 * 2. `job`: the scoring job's first run on PostgreSQL over the same world seeded in a scratch
 *    database (every event newly resolved: all predictions scored and marked, then the score
 *    table), then `GET /v1/leaderboard` and the default `GET /v1/events/scored` under wrk beside
 *    a minimal Hono ceiling serving the same bytes (as `bench:events`).
 *
 * Peak RSS is `Deno.memoryUsage().rss` sampled every 10 ms and the kernel's high-water mark
 * (`VmHWM`), which also sees synchronous stretches the sampler cannot. The job's line also gives
 * CPU seconds (`/proc`): of the bench process (`jsCpuS`) and of the database's client backends
 * (`pgCpuS`), the work itself, which a shared machine's load does not inflate as it does wall
 * time. Targets: under 30 s and 1 GB each; the routes at least 70 % of the ceiling.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test deno task bench:scoring
 *   BENCH_EVENTS=2000 …  (a tenth of the world; BENCH_SECONDS, BENCH_ROUNDS for the HTTP part)
 */
import postgres from "postgres";
import { silentLogger } from "../../actors/kernel/mod.ts";
import { ScorerV1Stream } from "../../actors/scoring/mod.ts";
import { createService } from "../service/service.ts";
import { withScratchDatabase } from "./world/scratch_database.ts";
import { ensureWrk, type LoadResult, pinServerCpu, printTable } from "./world/load.ts";
import { alternatingRounds, ceilingFor } from "./world/rounds.ts";
import {
  BENCH_PAYOUT,
  scorerEventStream,
  scorerRegistrations,
  seedDatabase,
  type WorldSize,
} from "./world/scoring_world.ts";
import { benchHotkeys, benchWorldConfig, registerBenchMiners, runJobOnce } from "./world/world_setup.ts";
import { cpuMeter } from "./world/cpu.ts";

const SIZE: WorldSize = {
  events: Number(Deno.env.get("BENCH_EVENTS") ?? 20_000),
  miners: 256,
  perEvent: 50,
};
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 5);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);
const INTERVAL_MS = 300_000;

/** Peak RSS: the largest sampled `rss` and the kernel's high-water mark. */
class PeakRss {
  #max = 0;
  readonly #timer = setInterval(() => this.sample(), 10);

  sample(): void {
    this.#max = Math.max(this.#max, Deno.memoryUsage().rss);
  }

  async stop(): Promise<{ sampledMb: number; hwmMb: number }> {
    clearInterval(this.#timer);
    this.sample();
    const status = await Deno.readTextFile("/proc/self/status").catch(() => "");
    const hwmKb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
    return { sampledMb: this.#max / 2 ** 20, hwmMb: hwmKb / 1024 };
  }
}

/**
 * The streaming scorer over the world, one event at a time in its order: the event step the
 * job runs per event (`scoreEventPredictions`) and the table fold the job's table pass runs
 * (`ScoreTableFold`), composed by `ScorerV1Stream`. Each event's predictions are made just
 * before it is scored and dropped after, so the peak is the scorer's.
 */
async function pure(): Promise<void> {
  const nowMs = Date.now();
  const hotkeys = benchHotkeys(SIZE.miners);
  const peak = new PeakRss();
  const stream = new ScorerV1Stream({
    computedAtMs: Math.floor(nowMs / INTERVAL_MS) * INTERVAL_MS,
    windowDays: 30,
    registrations: scorerRegistrations(hotkeys, nowMs).map(({ hotkey, uid, firstSeenAt }) => ({
      hotkey,
      uid,
      firstSeenAtMs: Date.parse(firstSeenAt),
    })),
  });
  const counts = { predictions: 0, valid: 0, events: 0 };
  let generateMs = 0;
  const start = performance.now();
  const events = scorerEventStream(SIZE, hotkeys, nowMs);
  for (;;) {
    const made = performance.now();
    const next = events.next();
    generateMs += performance.now() - made;
    if (next.done) break;
    const { scored, result } = stream.addEvent(next.value.event, next.value.predictions);
    counts.predictions += scored.length;
    counts.valid += scored.filter((row) => row.result.isValid).length;
    counts.events += result === null ? 0 : 1;
  }
  const { miners } = stream.finish(BENCH_PAYOUT);
  const end = performance.now();
  const rss = await peak.stop();
  const passing = Object.values(miners).filter((m) => m.scoring.gate === "pass").length;
  console.log(JSON.stringify({
    phase: "pure",
    scoreMs: end - start - generateMs,
    generateMs,
    ...rss,
    check: `${counts.predictions} predictions (${counts.valid} valid), ${counts.events} events, ` +
      `${passing} miners passing`,
  }));
}

/** Ceiling and service on `url`, warmed up, then `ROUNDS` alternating rounds; the median of each. */
async function compare(url: string): Promise<{ rows: LoadResult[]; bytes: number }> {
  const ceiling = await ceilingFor(url);
  const { medians } = await alternatingRounds([
    { label: "ceiling: minimal Hono, same bytes", url: ceiling.url },
    { label: "service", url },
  ], { rounds: ROUNDS, seconds: SECONDS });
  await ceiling.close();
  return { rows: medians, bytes: ceiling.bytes };
}

async function job(serverUrl: string): Promise<void> {
  await withScratchDatabase(serverUrl, async (url) => {
    const nowMs = Date.now();
    const keys = benchHotkeys(SIZE.miners);
    const config = benchWorldConfig(url);
    const service = await createService(config, { log: silentLogger });
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const seeding = performance.now();
    await seedDatabase(sql, SIZE, keys, nowMs);
    await registerBenchMiners(service.storage, keys, nowMs);
    const seededMs = performance.now() - seeding;
    const [{ count } = { count: "?" }] = await sql<
      { count: string }[]
    >`SELECT count(*)::TEXT AS count FROM predictions`;
    const peak = new PeakRss();
    const cpu = await cpuMeter(sql);
    const start = performance.now();
    await runJobOnce(service.storage, service.scoring.job, nowMs);
    const jobMs = performance.now() - start;
    const jobCpu = await cpu.stop();
    const rss = await peak.stop();
    // What reads show: assignments whose prediction is marked read `scored` (migration 020).
    const [marked] = await sql<{ scored: string; events: string }[]>`
      SELECT (SELECT count(*) FROM assignments a WHERE a.status = 'submitted' AND EXISTS (
          SELECT 1 FROM prediction_marks m WHERE m.event_id = a.event_id AND a.id = ANY(m.agent_prediction_ids))
        )::TEXT AS scored,
        (SELECT count(*) FROM scored_events)::TEXT AS events`;
    const table = await service.storage.scores.getTable();
    const cpu2 = await cpuMeter(sql);
    const start2 = performance.now();
    await runJobOnce(service.storage, service.scoring.job, nowMs + 1_000);
    const rerunMs = performance.now() - start2;
    const rerunCpu = await cpu2.stop();
    console.log(JSON.stringify({
      phase: "job",
      seedMs: seededMs,
      jobMs,
      ...jobCpu,
      rerunMs,
      rerunCpu,
      ...rss,
      check:
        `${count} predictions seeded, ${marked?.scored} assignments scored, ${marked?.events} events scored, ` +
        `${table?.rows.length} table rows, ${
          table?.rows.filter((r) => r.scoring.gate === "pass").length
        } passing`,
    }));
    await sql.end();
    await http(service);
    await service.close();
  });
}

async function http(service: Awaited<ReturnType<typeof createService>>): Promise<void> {
  await service.metagraph.view.refresh();
  await service.prices.refresh();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, service.app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const pinned = await pinServerCpu();
  console.log(pinned ? "server pinned to CPU 0, wrk (1 thread) to CPU 1" : "taskset missing: nothing pinned");
  for (const path of ["/v1/leaderboard", "/v1/events/scored"]) {
    const { rows, bytes } = await compare(`${base}${path}`);
    printTable(`GET ${path} — ${bytes} bytes, median of ${ROUNDS} ${SECONDS}s rounds, 64 connections`, rows);
    const [ceiling, ours] = rows as [LoadResult, LoadResult];
    console.log(
      `${path}: ${(100 * ours.requestsPerSecond / ceiling.requestsPerSecond).toFixed(0)} % of the ceiling`,
    );
  }
  await server.shutdown();
}

async function child(phase: string): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL(import.meta.url).pathname, phase],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`bench:scoring ${phase} failed`);
}

async function main(): Promise<void> {
  const phase = Deno.args[0];
  const serverUrl = Deno.env.get("DATABASE_URL");
  if (phase === "pure") return await pure();
  if (!serverUrl) throw new Error("bench:scoring needs DATABASE_URL (a PostgreSQL server)");
  if (phase === "job") return await job(serverUrl);
  await ensureWrk();
  console.log(
    `world: ${SIZE.events} events × ${SIZE.perEvent} miners = ${SIZE.events * SIZE.perEvent} predictions, ` +
      `${SIZE.miners} miners; targets: < 30 s and < 1 GB each; routes >= 70 % of the ceiling`,
  );
  await child("pure");
  await child("job");
}

if (import.meta.main) await main();
