/**
 * Benchmark (`deno task bench:predictions`): the customer prediction reads on PostgreSQL over the
 * world of `bench:scoring` (20,000 events, 256 miners, 1,000,000 stored predictions, scored once
 * by the scoring job so every miner has its weight): `GET /v1/predictions/{eventId}` (a different
 * event each request) and `POST /v1/predictions/query` with 100 ids (a different 100 each
 * request), beside the authenticated `GET /v1/credits/balance` (the ceiling of a key route), under
 * wrk, in alternating rounds. Targets: the single read ≥ 50 % of the balance's requests/s; the
 * 100-id query's p99 under 10× the single read's p99.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres deno task bench:predictions
 *   BENCH_EVENTS=2000 …  (a tenth of the world; BENCH_SECONDS, BENCH_ROUNDS for the HTTP part)
 */
import postgres from "postgres";
import { silentLogger } from "../../actors/kernel/mod.ts";
import { createService } from "../service/service.ts";
import { withScratchDatabase } from "./world/scratch_database.ts";
import { adminPost, ensureWrk, type LoadResult, pinServerCpu, printTable } from "./world/load.ts";
import { alternatingRounds, type LoadRun } from "./world/rounds.ts";
import { eventId, seedDatabase, type WorldSize } from "./world/scoring_world.ts";
import { benchHotkeys, benchWorldConfig, registerBenchMiners, runJobOnce } from "./world/world_setup.ts";

const SIZE: WorldSize = {
  events: Number(Deno.env.get("BENCH_EVENTS") ?? 20_000),
  miners: 256,
  perEvent: 50,
};
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 5);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);
const ADMIN_TOKEN = crypto.randomUUID();
const QUERY_IDS = 100;

function admin(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  return adminPost(base, ADMIN_TOKEN, path, body);
}

/** A customer org with credits, and a key of each scope the runs use (highest allowance). */
async function customerKeys(base: string): Promise<Record<"balance" | "read" | "query", string>> {
  const org = await admin(base, "/admin/v1/orgs", { name: "bench customer" });
  await admin(base, `/admin/v1/orgs/${org.id}/credits`, { amountMicro: "1000000000", reference: "bench" });
  const key = async (scope: string) =>
    String(
      (await admin(base, `/admin/v1/orgs/${org.id}/keys`, {
        name: scope,
        scopes: [scope],
        rateLimitRpm: 1_000_000,
      })).apiKey,
    );
  return {
    balance: await key("billing:read"),
    read: await key("predictions:read"),
    query: await key("predictions:write"),
  };
}

/** wrk scripts: each request a different event (GET) or a different 100 events (POST query). */
async function wrkScripts(dir: string): Promise<{ single: string; query: string }> {
  const single = `${dir}/single.lua`;
  const query = `${dir}/query.lua`;
  const id = (expression: string) => `string.format("${eventId(0).replace(/0+$/, "")}%06d", ${expression})`;
  await Deno.writeTextFile(
    single,
    `local i = 0
request = function()
  i = (i + 7919) % ${SIZE.events}
  return wrk.format("GET", "/v1/predictions/" .. ${id("i")})
end
`,
  );
  await Deno.writeTextFile(
    query,
    `wrk.headers["Content-Type"] = "application/json"
local i = 0
request = function()
  local ids = {}
  for k = 0, ${QUERY_IDS - 1} do ids[#ids + 1] = '"' .. ${
      id(`(i * ${QUERY_IDS} + k) % ${SIZE.events}`)
    } .. '"' end
  i = i + 1
  return wrk.format("POST", "/v1/predictions/query", nil, '{"eventIds":[' .. table.concat(ids, ",") .. ']}')
end
`,
  );
  return { single, query };
}

async function measure(base: string): Promise<LoadResult[]> {
  const keys = await customerKeys(base);
  const scripts = await wrkScripts(await Deno.makeTempDir({ prefix: "fgw_bench_lua_" }));
  const withKey = (apiKey: string, script?: string) => ({
    headers: { authorization: `Bearer ${apiKey}` },
    ...(script ? { script } : {}),
  });
  const runs: LoadRun[] = [
    {
      label: "GET /v1/credits/balance (key route ceiling)",
      url: `${base}/v1/credits/balance`,
      options: withKey(keys.balance),
    },
    { label: "GET /v1/predictions/{eventId}", url: base, options: withKey(keys.read, scripts.single) },
    {
      label: `POST /v1/predictions/query (${QUERY_IDS} ids)`,
      url: base,
      options: withKey(keys.query, scripts.query),
    },
  ];
  const { every, medians } = await alternatingRounds(runs, { rounds: ROUNDS, seconds: SECONDS });
  printTable("Every round", every);
  return medians;
}

async function bench(serverUrl: string): Promise<number> {
  return await withScratchDatabase(serverUrl, async (url) => {
    const nowMs = Date.now();
    const config = benchWorldConfig(url, { FGW_ADMIN_TOKEN: ADMIN_TOKEN });
    const service = await createService(config, { log: silentLogger });
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const started = performance.now();
    const hotkeys = benchHotkeys(SIZE.miners);
    await seedDatabase(sql, SIZE, hotkeys, nowMs);
    await registerBenchMiners(service.storage, hotkeys, nowMs);
    await sql.end();
    const seededMs = performance.now() - started;
    await runJobOnce(service.storage, service.scoring.job, nowMs);
    console.log(
      `seeded in ${(seededMs / 1000).toFixed(1)} s, scored in ${
        ((performance.now() - started - seededMs) / 1000).toFixed(1)
      } s`,
    );
    await service.metagraph.view.refresh();
    await service.catalog.view.refresh();
    const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, service.app.fetch);
    const base = `http://127.0.0.1:${server.addr.port}`;
    console.log(
      (await pinServerCpu()) ? "server pinned to CPU 0, wrk (1 thread) to CPU 1" : "nothing pinned",
    );
    try {
      const rows = await measure(base);
      printTable(`Median of ${ROUNDS} alternating ${SECONDS} s rounds, 64 connections`, rows);
      const [ceiling, single, query] = rows as [LoadResult, LoadResult, LoadResult];
      const share = (100 * single.requestsPerSecond / ceiling.requestsPerSecond).toFixed(1);
      console.log(`\nsingle read = ${share} % of the key-route ceiling (target >= 50 %)`);
      const ratio = (query.p99Ms / single.p99Ms).toFixed(2);
      console.log(
        `query p99 ${query.p99Ms} ms = ${ratio}× the single read's p99 ${single.p99Ms} ms (target < 10×)`,
      );
      return rows.reduce((sum, row) => sum + row.non2xx, 0);
    } finally {
      await server.shutdown();
      await service.close();
    }
  });
}

async function main(): Promise<void> {
  const serverUrl = Deno.env.get("DATABASE_URL");
  if (!serverUrl) {
    console.error(
      "bench:predictions needs DATABASE_URL (a PostgreSQL server; a scratch database is made on it)",
    );
    Deno.exit(2);
  }
  await ensureWrk();
  console.log(
    `world: ${SIZE.events} events × ${SIZE.perEvent} = ${
      SIZE.events * SIZE.perEvent
    } predictions, ${SIZE.miners} miners`,
  );
  const failed = await bench(serverUrl);
  if (failed > 0) {
    console.log(`\nWARNING: ${failed} answers were not 2xx: these figures do not measure the routes`);
    Deno.exit(1);
  }
}

if (import.meta.main) await main();
