/**
 * Benchmark: `GET /v1/events` over 20,000 live events, 64 connections from wrk, beside the
 * ceiling (a minimal Hono app returning the same bytes from memory) in the same run.
 */
import { silentLogger } from "../../actors/kernel/mod.ts";
import { loadConfig } from "../service/config.ts";
import { createService } from "../service/service.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { liveEvent } from "./world/catalog_world.ts";
import { ensureWrk, type LoadResult, pinServerCpu, printTable } from "./world/load.ts";
import { alternatingRounds, ceilingFor } from "./world/rounds.ts";

const EVENTS = 20_000;
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 8);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);

async function seededStorage(dir: string) {
  const storage = await openKvStorage(`${dir}/bench.sqlite`);
  const now = Date.now();
  for (let i = 0; i < EVENTS; i += 500) {
    await Promise.all(
      Array.from(
        { length: Math.min(500, EVENTS - i) },
        (_, j) => storage.events.put(liveEvent(i + j, now), 0, now),
      ),
    );
  }
  return storage;
}

/** A service on `storage`, its app served on a free port. `cacheMs` 0 renders every request. */
async function served(path: string, cacheMs: number) {
  const storage = await openKvStorage(path);
  const config = loadConfig({
    FGW_IP_RPM: "0",
    FGW_LOG_LEVEL: "error",
    FGW_EVENTS_CACHE_MS: String(cacheMs),
  });
  const service = await createService(config, { storage, log: silentLogger });
  await service.catalog.view.refresh();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, service.app.fetch);
  return { service, server, base: `http://127.0.0.1:${server.addr.port}` };
}

/** The URL of page 3 of the filtered, sorted query (following real cursors). */
async function thirdPagePath(base: string): Promise<string> {
  let path = "/v1/events?min_price=0.1&sortBy=volume";
  for (let page = 1; page < 3; page++) {
    const body = await (await fetch(`${base}${path}`)).json();
    path = `/v1/events?min_price=0.1&sortBy=volume&cursor=${encodeURIComponent(body.nextCursor)}`;
  }
  return path;
}

/**
 * Ceiling, cached service and uncached service on the same path, each warmed up once, then
 * `ROUNDS` alternating rounds; each row is its median round by requests/s (one noisy interval
 * on a shared 2-core machine cannot decide a figure).
 */
async function compare(path: string, cachedBase: string, uncachedBase: string): Promise<LoadResult[]> {
  const ceiling = await ceilingFor(`${cachedBase}${path}`);
  const { medians } = await alternatingRounds([
    { label: "ceiling: minimal Hono, same bytes", url: ceiling.url },
    { label: "service (1 s page cache)", url: `${cachedBase}${path}` },
    { label: "service (no page cache)", url: `${uncachedBase}${path}` },
  ], { rounds: ROUNDS, seconds: SECONDS });
  await ceiling.close();
  return medians;
}

async function main(): Promise<void> {
  await ensureWrk();
  const pinned = await pinServerCpu();
  const dir = await Deno.makeTempDir({ prefix: "fgw_bench_" });
  await (await seededStorage(dir)).close();
  const cached = await served(`${dir}/bench.sqlite`, 1_000);
  const uncached = await served(`${dir}/bench.sqlite`, 0);
  const size = cached.service.catalog.view.current().size;
  console.log(
    `catalog: ${size} live events; median of ${ROUNDS} alternating ${SECONDS}s rounds, 64 connections (wrk)`,
  );
  console.log(pinned ? "server pinned to CPU 0, wrk (1 thread) to CPU 1" : "taskset missing: nothing pinned");
  const defaultRows = await compare("/v1/events", cached.base, uncached.base);
  const filteredRows = await compare(await thirdPagePath(cached.base), cached.base, uncached.base);
  printTable("GET /v1/events — default query", defaultRows);
  printTable("GET /v1/events — min_price=0.1, sortBy=volume, third page (cursor)", filteredRows);
  console.log("\ntargets: default >= 70 % of ceiling with p99 < 20 ms; filtered page 3 >= 25 % of ceiling");
  for (const { server } of [cached, uncached]) await server.shutdown();
  await cached.service.close();
  await uncached.service.close();
  await Deno.remove(dir, { recursive: true });
}

if (import.meta.main) await main();
