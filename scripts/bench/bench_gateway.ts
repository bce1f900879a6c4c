/**
 * Benchmark of the billed gateway, in one run against the same mock OpenAI-compatible provider:
 * the mock directly, our `POST /v1/gateway/completions` on PostgreSQL (key check and rate window,
 * hold, upstream call, settle with its usage record: all durable) with 64 organisations (one key
 * each) and with a single organisation (every call through one OrgActor), and the Portkey
 * open-source gateway forwarding to the mock. wrk at 64 connections, alternating rounds, median
 * of the rounds. Then the added latency at a fixed offered rate (`world/paced.ts`: one request
 * every 1000 / rate ms): our p50 minus the mock's. Then public `GET /v1/gateway/providers` beside
 * `GET /healthz`. The service runs in this process, pinned to CPU 0; wrk, the paced generator, the
 * mock and the database's backends to CPU 1; Portkey to CPU 0 while it is measured (ours is idle
 * then).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test deno task bench:gateway
 *   (BENCH_SECONDS=8 BENCH_ROUNDS=3 BENCH_RATE=200 FGW_PG_POOL=16)
 */
import { silentLogger } from "../../actors/kernel/mod.ts";
import { ledgerSum } from "../../storage/ledger_sum.ts";
import { loadConfig } from "../service/config.ts";
import { withScratchDatabase } from "./world/scratch_database.ts";
import { measureCommitFloor } from "./world/commit_floor.ts";
import { createService, type Service } from "../service/service.ts";
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
import {
  type Child,
  ensureNodeDeps,
  fixedRate,
  startMock,
  startPortkey,
  wrkScript,
} from "./world/gateway_world.ts";

const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 8);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);
const RATE = Number(Deno.env.get("BENCH_RATE") ?? 200);
const CONNECTIONS = 64;
const ORGS = 64;
const ADMIN_TOKEN = crypto.randomUUID();
const PORTKEY_PORT = Number(Deno.env.get("BENCH_PORTKEY_PORT") ?? 18787);
const MESSAGES = [{ role: "user", content: "Will it rain tomorrow in Lisbon?" }];
const OURS_BODY = { provider: "mock", model: "gpt-bench", messages: MESSAGES, maxTokens: 16 };
const OPENAI_BODY = { model: "gpt-bench", messages: MESSAGES, max_tokens: 16 };

function admin(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  return adminPost(base, ADMIN_TOKEN, path, body);
}

/** `count` funded organisations with one `gateway:write` key each: their ids and keys. */
async function orgsWithKeys(base: string, count: number): Promise<{ orgIds: string[]; keys: string[] }> {
  const orgIds: string[] = [];
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const org = await admin(base, "/admin/v1/orgs", { name: `bench ${i}` });
    const orgId = String(org.id);
    await admin(base, `/admin/v1/orgs/${orgId}/credits`, {
      amountMicro: "1000000000000000",
      reference: "bench",
    });
    const key = await admin(base, `/admin/v1/orgs/${orgId}/keys`, {
      name: "bench",
      scopes: ["gateway:write"],
      rateLimitRpm: 1_000_000,
    });
    orgIds.push(orgId);
    keys.push(String(key.apiKey));
  }
  return { orgIds, keys };
}

interface Targets {
  base: string;
  mock: Child;
  portkey: Child;
  scripts: { mock: string; portkey: string; many: string; one: string };
}

/** Alternating wrk rounds of the four targets; the medians. */
async function throughput({ base, mock, portkey, scripts }: Targets): Promise<LoadResult[]> {
  const options = { seconds: SECONDS, connections: CONNECTIONS };
  const runs: Record<string, LoadResult[]> = { mock: [], portkey: [], many: [], one: [] };
  const targets: [keyof typeof runs, string, string][] = [
    ["mock", `http://127.0.0.1:${mock.port}/v1/chat/completions`, scripts.mock],
    ["portkey", `http://127.0.0.1:${portkey.port}/v1/chat/completions`, scripts.portkey],
    ["many", `${base}/v1/gateway/completions`, scripts.many],
    ["one", `${base}/v1/gateway/completions`, scripts.one],
  ];
  for (const [, url, script] of targets) await loadTest("warm-up", url, { seconds: 2, script });
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, url, script] of targets) {
      runs[name]!.push(await loadTest(`${name} #${round}`, url, { ...options, script }));
    }
  }
  printTable("Every round (wrk, 64 connections)", targets.flatMap(([name]) => runs[name]!));
  return [
    medianRun(runs.mock!, "mock provider, direct"),
    medianRun(runs.portkey!, "Portkey 1.15.2 -> mock"),
    medianRun(runs.many!, `ours, ${ORGS} orgs (PostgreSQL)`),
    medianRun(runs.one!, "ours, 1 org (PostgreSQL)"),
  ];
}

/** Every org's money adds up after the load: no hold left, balance == Σ ledger. */
async function verify(service: Service, orgIds: string[]): Promise<void> {
  for (const orgId of orgIds) {
    const account = await service.storage.billing.getAccount(orgId);
    const sum = await ledgerSum(service.storage.billing, orgId);
    if (!account || account.heldMicro !== 0n || account.balanceMicro !== sum) {
      throw new Error(
        `Invariant broken for ${orgId}: ${JSON.stringify(account, (_, v) => String(v))}, Σ ${sum}`,
      );
    }
  }
  console.log(`\nchecked ${orgIds.length} orgs: no hold left, balance == Σ ledger`);
}

async function measure(service: Service, base: string, databaseUrl: string, mock: Child): Promise<number> {
  const many = await orgsWithKeys(base, ORGS);
  const one = await orgsWithKeys(base, 1);
  const portkey = await startPortkey(PORTKEY_PORT, 0);
  try {
    const scripts = {
      mock: await wrkScript(OPENAI_BODY, { authorization: "Bearer sk-test" }),
      portkey: await wrkScript(OPENAI_BODY, {
        authorization: "Bearer sk-test",
        "x-portkey-provider": "openai",
        "x-portkey-custom-host": `http://127.0.0.1:${mock.port}/v1`,
      }),
      many: await wrkScript(OURS_BODY, {}, many.keys),
      one: await wrkScript(OURS_BODY, {}, one.keys),
    };
    await fetch(`${base}/v1/gateway/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${one.keys[0]}`, "content-type": "application/json" },
      body: JSON.stringify(OURS_BODY),
    }).then((r) => r.text());
    console.log(
      `service pinned to CPU 0; wrk, the mock and ${await pinDatabase(
        databaseUrl,
      )} PostgreSQL backends to CPU 1`,
    );
    const rows = await throughput({ base, mock, portkey, scripts });
    printTable("Median of the rounds", rows);
    const [, portkeyRow, manyRow, oneRow] = rows;
    const ratio = (row: LoadResult) => (row.requestsPerSecond / portkeyRow!.requestsPerSecond).toFixed(2);
    console.log(
      `\nours / Portkey: ${ORGS} orgs ${ratio(manyRow!)}x (target >= 2x), 1 org ${
        ratio(oneRow!)
      }x (target >= 1x)`,
    );
    await latency(base, mock, many.keys, databaseUrl);
    await publicListing(base);
    await verify(service, [...many.orgIds, ...one.orgIds]);
    return rows.reduce((sum, row) => sum + row.non2xx, 0);
  } finally {
    await portkey.stop();
  }
}

/**
 * Added latency at a fixed offered rate below saturation, spread over the 64 orgs' keys, beside
 * the floor of two durable commits one after the other on the same server (a call's hold and
 * settlement), measured right after.
 */
async function latency(base: string, mock: Child, keys: string[], databaseUrl: string): Promise<void> {
  const direct = await fixedRate(
    "mock provider, direct",
    `http://127.0.0.1:${mock.port}/v1/chat/completions`,
    {
      rate: RATE,
      seconds: SECONDS,
      body: OPENAI_BODY,
      keys: ["sk-test"],
    },
  );
  const ours = await fixedRate(`ours, ${keys.length} orgs (PostgreSQL)`, `${base}/v1/gateway/completions`, {
    rate: RATE,
    seconds: SECONDS,
    body: OURS_BODY,
    keys,
  });
  console.log(
    `\nFixed offered rate ${RATE} req/s (paced: one request every ${1_000 / RATE} ms, ${SECONDS}s)`,
  );
  console.log("| run | requests | p50 ms | p99 ms | non-2xx |\n|---|---:|---:|---:|---:|");
  for (const row of [direct, ours]) {
    console.log(
      `| ${row.label} | ${row.requests} | ${row.p50Ms.toFixed(2)} | ${
        row.p99Ms.toFixed(2)
      } | ${row.non2xx} |`,
    );
  }
  console.log(
    `added latency: p50 +${(ours.p50Ms - direct.p50Ms).toFixed(2)} ms (target <= 2 ms), p99 ours ${
      ours.p99Ms.toFixed(2)
    } ms`,
  );
  const floor = await measureCommitFloor(databaseUrl, { commits: 2, samples: 100, gapMs: 5 });
  console.log(`two durable commits one after the other now: p50 ${floor.p50Ms.toFixed(2)} ms (the floor)`);
}

/** bench:auth's comparison, on the public provider listing. */
async function publicListing(base: string): Promise<void> {
  const options = { seconds: SECONDS, connections: CONNECTIONS };
  const health = await loadTest("public GET /healthz", `${base}/healthz`, options);
  const listing = await loadTest("public GET /v1/gateway/providers", `${base}/v1/gateway/providers`, options);
  printTable("Public provider listing beside /healthz", [health, listing]);
}

async function run(databaseUrl: string): Promise<number> {
  const mock = await startMock(1);
  const providersFile = await Deno.makeTempFile({ prefix: "fgw_bench_providers_", suffix: ".json" });
  await Deno.writeTextFile(
    providersFile,
    JSON.stringify({
      providers: [{
        id: "mock",
        kind: "openai",
        baseUrl: `http://127.0.0.1:${mock.port}/v1`,
        timeoutMs: 10_000,
        models: [{ id: "gpt-bench", inputMicroPerMTok: "150000", outputMicroPerMTok: "600000" }],
      }],
    }),
  );
  const config = loadConfig({
    FGW_STORAGE: "postgres",
    DATABASE_URL: databaseUrl,
    // Commits and key counts made together share statements (a few connections at a time); the
    // rest of the pool serves reads. (The shared development server refuses more than 100 clients.)
    FGW_PG_POOL: Deno.env.get("FGW_PG_POOL") ?? "16",
    FGW_ADMIN_TOKEN: ADMIN_TOKEN,
    FGW_IP_RPM: "0",
    FGW_MARKET_SOURCE: "snapshot",
    FGW_METAGRAPH_SOURCE: "file",
    FGW_METAGRAPH_FILE: new URL("../../actors/validators/demo_metagraph.json", import.meta.url).pathname,
    FGW_PRICES_SOURCE: "file",
    FGW_PRICES_FILE: new URL("../../actors/prices/demo_prices.json", import.meta.url).pathname,
    FGW_PROVIDERS_FILE: providersFile,
    FGW_LOG_LEVEL: "error",
  });
  const service = await createService(config, { log: silentLogger });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, service.app.fetch);
  service.start();
  try {
    return await measure(service, `http://127.0.0.1:${server.addr.port}`, databaseUrl, mock);
  } finally {
    await server.shutdown();
    await service.close();
    await mock.stop();
    await Deno.remove(providersFile);
  }
}

async function main(): Promise<void> {
  const databaseUrl = Deno.env.get("DATABASE_URL");
  if (!databaseUrl) {
    console.error(
      "bench:gateway needs DATABASE_URL (a PostgreSQL server; a scratch database is created on it)",
    );
    Deno.exit(2);
  }
  await ensureWrk();
  await ensureNodeDeps();
  await pinServerCpu();
  const failed = await withScratchDatabase(databaseUrl, run);
  if (failed > 0) {
    console.log(`\nWARNING: ${failed} answers were not 2xx`);
    Deno.exit(1);
  }
}

if (import.meta.main) await main();
