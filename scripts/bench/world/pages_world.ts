/**
 * The world of `bench:pages`: the service on PostgreSQL holding both full data sets of the other
 * benchmarks — `bench:scoring`'s (20,000 resolved events, 1,000,000 predictions, 256 registered
 * miners, scored by one run of the scoring job: the leaderboard and the scored events) and
 * `bench:events`' (20,000 live events: the catalog) — with its views loaded, served on a free port.
 */
import postgres from "postgres";
import { silentLogger } from "../../../actors/kernel/mod.ts";
import { createService, type Service } from "../../service/service.ts";
import { liveEvent } from "./catalog_world.ts";
import { seedDatabase, type WorldSize } from "./scoring_world.ts";
import { benchHotkeys, benchWorldConfig, registerBenchMiners, runJobOnce } from "./world_setup.ts";

export interface PagesWorld {
  base: string;
  service: Service;
  /** How long seeding and the scoring run took, in ms. */
  seedMs: number;
  scoreMs: number;
  close(): Promise<void>;
}

/** Inserts live events 0 … `count − 1` as the event store's first `put` writes them (version 1). */
async function seedLiveEvents(sql: postgres.Sql, count: number, nowMs: number): Promise<void> {
  for (let start = 0; start < count; start += 1_000) {
    const rows = [];
    for (let i = start; i < Math.min(count, start + 1_000); i++) {
      const body = liveEvent(i, nowMs);
      rows.push({ id: body.id, body, version: 1, updated_at_ms: nowMs });
    }
    await sql`INSERT INTO events ${sql(rows as never, "id", "body", "version", "updated_at_ms")}`;
  }
}

/** Seeds the database at `databaseUrl` (migrated by the service), scores it once and serves the service. */
export async function openPagesWorld(
  databaseUrl: string,
  options: { size: WorldSize; liveEvents: number },
): Promise<PagesWorld> {
  const nowMs = Date.now();
  const keys = benchHotkeys(options.size.miners);
  const service = await createService(benchWorldConfig(databaseUrl), { log: silentLogger });
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const seeding = performance.now();
  try {
    await seedDatabase(sql, options.size, keys, nowMs);
    await seedLiveEvents(sql, options.liveEvents, nowMs);
  } finally {
    await sql.end();
  }
  await registerBenchMiners(service.storage, keys, nowMs);
  const scoring = performance.now();
  await runJobOnce(service.storage, service.scoring.job, nowMs);
  const scored = performance.now();
  await service.metagraph.view.refresh();
  await service.prices.refresh();
  await service.catalog.view.refresh();
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, service.app.fetch);
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    service,
    seedMs: scoring - seeding,
    scoreMs: scored - scoring,
    close: async () => {
      await server.shutdown();
      await service.close();
    },
  };
}
