/**
 * Benchmark (`deno task bench:dashboard`): the organisation dashboard's usage view,
 * `GET /v1/usage` (what the dashboard's usage page reads), on an organisation with 1,000,000 usage
 * records spread evenly over 366 days, 20 keys, 5 models (3 providers) and 10 miners
 * (`world/dashboard_world.ts`), in Asia/Kathmandu (UTC+5:45). Each view is asked once to warm it,
 * then `BENCH_RUNS` times in a row, in-process (`app.request`, with a `billing:read` key: the
 * key's check is in the figure); the figure is the median.
 *
 * Targets: on PostgreSQL, a 30-day view under 300 ms and a 366-day view under 1 s; on Deno KV
 * (small deployments, 100,000 records), a 30-day view under 1 s. Each is met when every dimension
 * (`by`) meets it.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test deno task bench:dashboard
 *   BENCH_RECORDS (1000000), BENCH_KV_RECORDS (100000), BENCH_RUNS (7)
 *
 * Without DATABASE_URL only the Deno KV part runs.
 */
import postgres from "postgres";
import { silentLogger } from "../../actors/kernel/mod.ts";
import { loadConfig } from "../service/config.ts";
import { createService, type Service } from "../service/service.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { quarterOf, type UsageDimension } from "../../storage/usage_store.ts";
import { type DashboardShape, ORG_ID, seedInBulk, seedThroughCommits } from "./world/dashboard_world.ts";
import { withScratchDatabase } from "./world/scratch_database.ts";
import { benchWorldConfig } from "./world/world_setup.ts";
import { median, verdict } from "./world/page_figures.ts";

const RECORDS = Number(Deno.env.get("BENCH_RECORDS") ?? 1_000_000);
const KV_RECORDS = Number(Deno.env.get("BENCH_KV_RECORDS") ?? 100_000);
const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? 7);
const ADMIN_TOKEN = crypto.randomUUID();
const TIME_ZONE = "Asia/Kathmandu";
const DAYS = 366;
const DAY_MS = 86_400_000;
const START_MS = Date.UTC(2025, 10, 20);
const DIMENSIONS: UsageDimension[] = ["key", "model", "provider", "miner"];

interface ViewFigure {
  store: string;
  days: number;
  by: UsageDimension;
  rows: number;
  medianMs: number;
  targetMs: number | null;
}

function shapeOf(records: number): DashboardShape {
  return { records, days: DAYS, keys: 20, models: 5, miners: 10 };
}

/** A `billing:read` key of the world's org, issued through the admin API. */
async function billingKey(service: Service): Promise<string> {
  const response = await service.app.request(`/admin/v1/orgs/${ORG_ID}/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "dashboard", scopes: ["billing:read"], rateLimitRpm: 1_000_000 }),
  });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`Cannot issue a key: ${JSON.stringify(body)}`);
  return body.apiKey;
}

/** The last local day of the world's calls, and the first day of a view of `days` days ending on it. */
function rangeOf(days: number): { from: string; to: string } {
  const last = START_MS + (DAYS - 1) * DAY_MS;
  const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { from: date(last - (days - 1) * DAY_MS), to: date(last) };
}

/** One view warmed, then asked `RUNS` times: its median and how many rows it shows. */
async function timeView(service: Service, apiKey: string, view: { days: number; by: UsageDimension }) {
  const { from, to } = rangeOf(view.days);
  const url = `/v1/usage?from=${from}&to=${to}&tz=${TIME_ZONE}&by=${view.by}`;
  const init = { headers: { authorization: `Bearer ${apiKey}` } };
  const warm = await service.app.request(url, init);
  const body = await warm.json();
  if (warm.status !== 200) throw new Error(`${url}: ${warm.status} ${JSON.stringify(body)}`);
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const response = await service.app.request(url, init);
    await response.text();
    times.push(performance.now() - started);
  }
  return { rows: body.rows.length as number, medianMs: median(times) };
}

async function measureViews(
  service: Service,
  store: string,
  targets: Record<number, number | null>,
): Promise<ViewFigure[]> {
  const apiKey = await billingKey(service);
  const figures: ViewFigure[] = [];
  for (const days of [30, DAYS]) {
    for (const by of DIMENSIONS) {
      figures.push({
        store,
        days,
        by,
        ...await timeView(service, apiKey, { days, by }),
        targetMs: targets[days]!,
      });
    }
  }
  return figures;
}

/** The summary over every call equals what the ledger debited (the credit less the balance). */
async function checkSums(service: Service, records: number): Promise<void> {
  const { storage } = service;
  const dayStarts = [quarterOf(START_MS), quarterOf(START_MS + DAYS * DAY_MS) + 1];
  const rows = await storage.usage.daily(ORG_ID, { dimension: "model", dayStarts });
  const account = await storage.billing.getAccount(ORG_ID);
  const debits = 10n ** 15n - account!.balanceMicro;
  const spent = rows.reduce((sum, row) => sum + row.spendMicro, 0n);
  const calls = rows.reduce((sum, row) => sum + row.calls, 0);
  if (spent !== debits || calls !== records) {
    throw new Error(`Summary ${spent} in ${calls} calls, ledger ${debits} in ${records}`);
  }
  console.log(`  checked: the summary sums to the ledger's debits (${calls} calls, ${spent} micro-units)`);
}

async function kvRun(): Promise<ViewFigure[]> {
  const dir = await Deno.makeTempDir({ prefix: "fgw_bench_dashboard_" });
  try {
    const storage = await openKvStorage(`${dir}/store.sqlite`);
    const config = loadConfig({ FGW_IP_RPM: "0", FGW_LOG_LEVEL: "error", FGW_ADMIN_TOKEN: ADMIN_TOKEN });
    const service = await createService(config, { log: silentLogger, storage });
    try {
      const seeding = performance.now();
      await seedThroughCommits(storage, shapeOf(KV_RECORDS), START_MS);
      console.log(
        `Deno KV: ${KV_RECORDS} calls committed in ${((performance.now() - seeding) / 1_000).toFixed(1)} s`,
      );
      await checkSums(service, KV_RECORDS);
      return await measureViews(service, `Deno KV, ${KV_RECORDS} records`, { 30: 1_000, [DAYS]: null });
    } finally {
      await service.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function pgRun(databaseUrl: string): Promise<ViewFigure[]> {
  const service = await createService(benchWorldConfig(databaseUrl, { FGW_ADMIN_TOKEN: ADMIN_TOKEN }), {
    log: silentLogger,
  });
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const seeding = performance.now();
    await seedInBulk(service.storage, sql, { shape: shapeOf(RECORDS), startMs: START_MS });
    // What autovacuum does to a table that stopped growing: statistics and the visibility map.
    await sql`VACUUM ANALYZE org_usage_buckets`;
    await sql`ANALYZE org_usage`;
    const [summary] = await sql<{ count: number }[]>`SELECT count(*)::int AS count FROM org_usage_buckets`;
    console.log(
      `PostgreSQL: ${RECORDS} calls inserted in ${((performance.now() - seeding) / 1_000).toFixed(1)} s, ` +
        `${summary!.count} summary rows`,
    );
    await checkSums(service, RECORDS);
    return await measureViews(service, `PostgreSQL, ${RECORDS} records`, { 30: 300, [DAYS]: 1_000 });
  } finally {
    await sql.end();
    await service.close();
  }
}

function printFigures(figures: readonly ViewFigure[]): void {
  console.log(`\nMedian of ${RUNS} runs (warm), GET /v1/usage in ${TIME_ZONE}`);
  console.log("| store | view | by | rows | median ms | target | met |\n|---|---|---|---:|---:|---|---|");
  for (const figure of figures) {
    const target = figure.targetMs === null ? "—" : `< ${figure.targetMs} ms`;
    const met = figure.targetMs === null ? "—" : verdict(figure.medianMs < figure.targetMs);
    console.log(
      `| ${figure.store} | ${figure.days} days | ${figure.by} | ${figure.rows} | ${
        figure.medianMs.toFixed(1)
      } | ${target} | ${met} |`,
    );
  }
  for (const store of new Set(figures.map((figure) => figure.store))) {
    for (const days of [30, DAYS]) {
      const views = figures.filter((figure) =>
        figure.store === store && figure.days === days && figure.targetMs
      );
      if (views.length === 0) continue;
      const worst = Math.max(...views.map((figure) => figure.medianMs));
      console.log(
        `${store}, ${days}-day view: worst median ${worst.toFixed(1)} ms, target < ${
          views[0]!.targetMs
        } ms: ${verdict(views.every((figure) => figure.medianMs < figure.targetMs!))}`,
      );
    }
  }
}

async function main(): Promise<void> {
  const figures = await kvRun();
  const databaseUrl = Deno.env.get("DATABASE_URL");
  if (databaseUrl) figures.push(...await withScratchDatabase(databaseUrl, pgRun));
  else console.log("PostgreSQL: skipped (set DATABASE_URL to a PostgreSQL server)");
  printFigures(figures);
}

if (import.meta.main) await main();
