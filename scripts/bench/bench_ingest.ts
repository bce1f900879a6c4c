/**
 * Benchmark: one ingestion pass of 50,000 markets from a fake Gamma server (its own process) into
 * each storage adapter, in a child process per adapter so its peak RSS is the service's alone.
 * A second pass over the unchanged markets must write nothing; the figures are printed.
 */
import { silentLogger } from "../../actors/kernel/mod.ts";
import { GammaMarketSource } from "../../actors/catalog/mod.ts";
import { loadConfig } from "../service/config.ts";
import { createService } from "../service/service.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { openPgStorage } from "../../storage/postgres/pg_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { withScratchDatabase } from "./world/scratch_database.ts";

const MARKETS = Number(Deno.env.get("BENCH_MARKETS") ?? 50_000);

interface ChildResult {
  adapter: string;
  firstPassMs: number;
  admitted: number;
  secondPassMs: number;
  secondPassWrites: number;
  peakRssMb: number;
}

async function child(adapter: "kv" | "postgres", gammaUrl: string): Promise<ChildResult> {
  if (adapter === "postgres") {
    return await withScratchDatabase(Deno.env.get("DATABASE_URL")!, async (url) => {
      const storage = await openPgStorage(url, { maxConnections: 10 });
      return await ingestTwice(adapter, { storage, gammaUrl });
    });
  }
  const dir = await Deno.makeTempDir({ prefix: "fgw_ingest_" });
  try {
    return await ingestTwice(adapter, { storage: await openKvStorage(`${dir}/bench.sqlite`), gammaUrl });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Two passes over the same markets into `storage` (closed afterwards), sampling peak RSS. */
async function ingestTwice(
  adapter: string,
  { storage, gammaUrl }: { storage: Storage; gammaUrl: string },
): Promise<ChildResult> {
  let peak = Deno.memoryUsage().rss;
  const sampler = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 20);
  const config = loadConfig({
    FGW_IP_RPM: "0",
    FGW_ADMIT_MIN_LIQUIDITY_USD: "0",
    FGW_ADMIT_MIN_VOLUME_USD: "0",
  });
  const service = await createService(config, { storage, log: silentLogger });
  const source = new GammaMarketSource({ baseUrl: gammaUrl });
  const t0 = performance.now();
  const first = await service.catalog.ingestion.pass(source);
  const t1 = performance.now();
  const second = await service.catalog.ingestion.pass(source);
  const t2 = performance.now();
  clearInterval(sampler);
  await service.close();
  return {
    adapter,
    firstPassMs: t1 - t0,
    admitted: first.admitted,
    secondPassMs: t2 - t1,
    secondPassWrites: second.admitted + second.updated,
    peakRssMb: Math.max(peak, Deno.memoryUsage().rss) / 2 ** 20,
  };
}

async function runChild(adapter: string, gammaUrl: string): Promise<ChildResult> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", import.meta.filename!, "--child", adapter, gammaUrl],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`ingestion child for ${adapter} failed`);
  return JSON.parse(new TextDecoder().decode(output.stdout).trim().split("\n").at(-1)!);
}

async function startGamma(): Promise<{ url: string; stop(): Promise<void> }> {
  const server = new URL("../../tests/support/fake_gamma_server.ts", import.meta.url).pathname;
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", server, String(MARKETS), String(Date.now())],
    stdout: "piped",
  }).spawn();
  const reader = process.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  return {
    url: value!.trim(),
    stop: async () => {
      process.kill("SIGTERM");
      await process.status;
    },
  };
}

async function main(): Promise<void> {
  const gamma = await startGamma();
  const adapters = Deno.env.get("DATABASE_URL") ? ["kv", "postgres"] : ["kv"];
  if (adapters.length === 1) console.log("DATABASE_URL is not set: the Postgres run is skipped");
  const rows = [];
  for (const adapter of adapters) rows.push(await runChild(adapter, gamma.url));
  await gamma.stop();
  console.log(`\nIngesting ${MARKETS} markets from the fake Gamma server (admission minimums set to 0)`);
  console.log("| adapter | first pass s | admitted | peak RSS MB | second pass s | second-pass writes |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.adapter} | ${(r.firstPassMs / 1000).toFixed(2)} | ${r.admitted} | ${r.peakRssMb.toFixed(0)} | ${
        (r.secondPassMs / 1000).toFixed(2)
      } | ${r.secondPassWrites} |`,
    );
  }
  console.log("targets: first pass under 20 s, peak RSS under 500 MB, second pass writes nothing");
}

if (import.meta.main) {
  if (Deno.args[0] === "--child") {
    console.log(JSON.stringify(await child(Deno.args[1] as "kv" | "postgres", Deno.args[2]!)));
    Deno.exit(0);
  } else await main();
}
