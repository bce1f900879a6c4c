/**
 * Benchmark: authenticated `GET /v1/credits/balance` (API key check, then one PostgreSQL step that
 * counts the request in the key's shared rate-limit window and reads the balance) beside public
 * `GET /healthz`, under wrk in a separate process, in alternating rounds; the figure is the median
 * of the per-round ratios, and any non-2xx answer makes it exit 1. Needs DATABASE_URL
 * (a scratch database is created on that server and dropped). Target: authenticated ≥ 50 % of
 * public requests/s.
 */
import { silentLogger } from "../../actors/kernel/mod.ts";
import { loadConfig } from "../service/config.ts";
import { withScratchDatabase } from "./world/scratch_database.ts";
import { createService } from "../service/service.ts";
import {
  adminPost,
  ensureWrk,
  type LoadResult,
  loadTest,
  medianRun,
  pinDatabase,
  pinServerCpu,
  printTable,
} from "./world/load.ts";

const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 10);
const CONNECTIONS = Number(Deno.env.get("BENCH_CONNECTIONS") ?? 64);
/** Rounds alternate public and authenticated runs, so drift on a shared host hits both alike. */
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);
const ADMIN_TOKEN = crypto.randomUUID();
/** `BENCH_PIN_DB=0` leaves the database's backends unpinned (to compare). */
const PIN_DB = Deno.env.get("BENCH_PIN_DB") !== "0";

function admin(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  return adminPost(base, ADMIN_TOKEN, path, body);
}

/** An org with credits. */
async function createBenchOrg(base: string): Promise<string> {
  const org = await admin(base, "/admin/v1/orgs", { name: "bench" });
  await admin(base, `/admin/v1/orgs/${org.id}/credits`, { amountMicro: "1000000000", reference: "bench" });
  return String(org.id);
}

/**
 * The `authorization` header of a new billing:read key of `orgId`, at the highest allowance
 * (1,000,000 a minute): one run of one key must never reach it, so each run gets its own key.
 */
async function benchKeyHeader(base: string, orgId: string): Promise<Record<string, string>> {
  const issued = await admin(base, `/admin/v1/orgs/${orgId}/keys`, {
    name: "bench",
    scopes: ["billing:read"],
    rateLimitRpm: 1_000_000,
  });
  return { authorization: `Bearer ${issued.apiKey}` };
}

interface Target {
  base: string;
  orgId: string;
  databaseUrl: string;
}

/** Runs the rounds and prints the figures; resolves with how many answers were not 2xx. */
async function measure({ base, orgId, databaseUrl }: Target): Promise<number> {
  const options = { seconds: SECONDS, connections: CONNECTIONS };
  const balanceUrl = `${base}/v1/credits/balance`;
  console.log(
    `postgres storage; ${ROUNDS} alternating rounds of ${SECONDS}s per route, ${CONNECTIONS} connections`,
  );
  const pinned = await pinServerCpu();
  await loadTest("warm-up", `${base}/healthz`, { seconds: 2 });
  await loadTest("warm-up", balanceUrl, { seconds: 2, headers: await benchKeyHeader(base, orgId) });
  // After the warm-up the service's connection pool is open: its backends are the ones to pin.
  const backends = pinned && PIN_DB ? await pinDatabase(databaseUrl) : 0;
  console.log(
    pinned
      ? `service pinned to CPU 0; wrk and ${backends} PostgreSQL backends of this run to CPU 1`
      : "nothing pinned",
  );
  const publicRuns: LoadResult[] = [];
  const keyRuns: LoadResult[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    publicRuns.push(await loadTest(`public GET /healthz #${round}`, `${base}/healthz`, options));
    keyRuns.push(
      await loadTest(`authenticated GET /v1/credits/balance #${round}`, balanceUrl, {
        ...options,
        headers: await benchKeyHeader(base, orgId),
      }),
    );
  }
  return report(publicRuns, keyRuns);
}

/** Prints every round, the medians and the ratio; returns how many answers were not 2xx. */
function report(publicRuns: LoadResult[], keyRuns: LoadResult[]): number {
  const every = publicRuns.flatMap((row, i) => [row, keyRuns[i]!]);
  printTable("Every round", every);
  const failed = every.reduce((sum, row) => sum + row.non2xx, 0);
  if (failed > 0) {
    console.log(`\nWARNING: ${failed} answers were not 2xx: these figures do not measure the route`);
  }
  const rows = [
    medianRun(publicRuns, "public GET /healthz"),
    medianRun(keyRuns, "authenticated GET /v1/credits/balance"),
  ];
  printTable("Median of the rounds", rows);
  // Each round's pair ran back to back, so its ratio is the fairest; the median of those is the figure.
  const ratios = keyRuns.map((run, i) => run.requestsPerSecond / publicRuns[i]!.requestsPerSecond);
  const percent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;
  const middle = ratios.toSorted((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
  console.log(`\nauthenticated / public, per round: ${ratios.map(percent).join(", ")}`);
  console.log(`authenticated / public = ${percent(middle)} of requests/s, median round (target >= 50 %)`);
  return failed;
}

async function run(databaseUrl: string): Promise<number> {
  const config = loadConfig({
    FGW_STORAGE: "postgres",
    DATABASE_URL: databaseUrl,
    FGW_PG_POOL: Deno.env.get("FGW_PG_POOL") ?? "10",
    FGW_ADMIN_TOKEN: ADMIN_TOKEN,
    FGW_IP_RPM: "0",
    FGW_MARKET_SOURCE: "snapshot",
    FGW_LOG_LEVEL: "error",
  });
  const service = await createService(config, { log: silentLogger });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, service.app.fetch);
  service.start();
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    return await measure({ base, orgId: await createBenchOrg(base), databaseUrl });
  } finally {
    await server.shutdown();
    await service.close();
  }
}

async function main(): Promise<void> {
  const databaseUrl = Deno.env.get("DATABASE_URL");
  if (!databaseUrl) {
    console.error("bench:auth needs DATABASE_URL (a PostgreSQL server; a scratch database is created on it)");
    Deno.exit(2);
  }
  await ensureWrk();
  const failed = await withScratchDatabase(databaseUrl, run);
  if (failed > 0) Deno.exit(1);
}

if (import.meta.main) await main();
