/**
 * Lease counters stored before they were dated (docs/billing.md, "Purge of spend counters"): they
 * read as before on both adapters, a hold's move dates them, and the purge dates the rest (Deno
 * KV) or migration 024 dated them the day it ran (PostgreSQL), so they are purged once that day is
 * old enough, never sooner.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { openPgStorage } from "../../storage/postgres/pg_storage.ts";
import type { SpendCounter } from "../../storage/billing_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { createScratchDatabase } from "../../scripts/bench/world/scratch_database.ts";
import { PgliteServer } from "../support/pglite_server.ts";

const MIGRATIONS = new URL("../../storage/postgres/migrations/", import.meta.url);
const LEGACY: SpendCounter = { cap: "lease", agentPredictionId: "ap_legacy" };
const MOVED = { cap: "lease", agentPredictionId: "ap_moved" } as const;
const MINER = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";

/** Takes and settles a hold on `day` that names `MOVED` (cost 10 of a hold of 100). */
async function moveByHold(storage: Storage, day: string): Promise<void> {
  const atMs = Date.parse(`${day}T00:00:00Z`);
  await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: atMs });
  const { billing } = storage;
  assert.ok(
    await billing.commit("org_a", { atMs, entry: { kind: "credit", amountMicro: 1_000n, reference: "r" } }),
  );
  const cap = { minerHotkey: MINER, day, agentPredictionId: MOVED.agentPredictionId };
  const limits = { dailyMicro: 1_000n, leaseMicro: 1_000n };
  const addHold = { id: "h1", amountMicro: 100n, createdAtMs: atMs, expiresAtMs: atMs + 60_000, cap };
  assert.ok(await billing.commit("org_a", { atMs, addHold, capLimits: limits }));
  const usage = {
    holdId: "h1",
    amountMicro: 10n,
    keyId: null,
    minerHotkey: MINER,
    description: "d",
    metadata: {},
  };
  const entry = { kind: "debit" as const, amountMicro: -10n, holdId: "h1" };
  assert.ok(await billing.commit("org_a", { atMs, removeHoldId: "h1", entry, usage }));
}

/** Purge steps until every counter was gone through; how many were purged. */
async function purge(storage: Storage, at: { beforeDay: string; today: string }): Promise<number> {
  let purged = 0;
  let after: string | null = null;
  do {
    const step = await storage.billing.purgeSpendCounters({ ...at, limit: 10, ...(after ? { after } : {}) });
    purged += step.purged;
    after = step.next;
  } while (after !== null);
  return purged;
}

Deno.test("Deno KV: an undated lease counter reads as before, and is dated by a hold's move or by the purge", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fgw_kv_" });
  const kv = await Deno.openKv(`${dir}/store.sqlite`);
  const storage = await openKvStorage(`${dir}/store.sqlite`);
  try {
    await kv.set(["lease_llm_spend", LEGACY.agentPredictionId], 70n);
    await kv.set(["lease_llm_spend", MOVED.agentPredictionId], 50n);
    assert.equal(await storage.billing.capSpent(LEGACY), 70n);
    await moveByHold(storage, "2026-01-02");
    assert.deepEqual((await kv.get(["lease_llm_spend", MOVED.agentPredictionId])).value, {
      spentMicro: 60n,
      day: "2026-01-02",
    });
    assert.equal(
      await purge(storage, { beforeDay: "2026-01-05", today: "2026-01-09" }),
      2,
      "the daily and moved",
    );
    assert.deepEqual((await kv.get(["lease_llm_spend", LEGACY.agentPredictionId])).value, {
      spentMicro: 70n,
      day: "2026-01-09",
    }, "dated the day the purge met it, not purged");
    assert.equal(await purge(storage, { beforeDay: "2026-01-09", today: "2026-01-10" }), 0);
    assert.equal(await purge(storage, { beforeDay: "2026-01-10", today: "2026-01-11" }), 1);
    assert.equal(await storage.billing.capSpent(LEGACY), 0n);
  } finally {
    kv.close();
    await storage.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** An empty database: a scratch one on the server at DATABASE_URL, else an embedded PGlite. */
async function emptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = Deno.env.get("DATABASE_URL");
  if (server) return await createScratchDatabase(server, { prefix: "fgw_test_" });
  const db = await PGlite.create();
  const pglite = new PgliteServer(db);
  return { url: pglite.url, drop: async () => (await pglite.close(), await db.close()) };
}

/** The UTC day after `day`. */
function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

Deno.test("PostgreSQL: migration 024 dates a lease counter stored before it the day it runs", async () => {
  const database = await emptyDatabase();
  try {
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    await sql`CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`;
    const names = [...Deno.readDirSync(MIGRATIONS)].map((entry) => entry.name).filter((name) => name < "024");
    for (const name of names.sort()) {
      await sql.unsafe(await Deno.readTextFile(new URL(name, MIGRATIONS)));
      await sql`INSERT INTO schema_migrations (name) VALUES (${name})`;
    }
    await sql`INSERT INTO lease_llm_spend (agent_prediction_id, spent_micro) VALUES ('ap_legacy', 70)`;
    const storage = await openPgStorage(database.url, { maxConnections: 2 });
    try {
      assert.equal(await storage.billing.capSpent(LEGACY), 70n, "read as before");
      const [row] = await sql<{ day: string; today: string }[]>`
        SELECT day, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS today FROM lease_llm_spend`;
      const day = row!.day;
      assert.equal(day, row!.today, "dated the day the migration ran");
      await sql`INSERT INTO lease_llm_spend (agent_prediction_id, spent_micro) VALUES ('ap_previous_version', 5)`;
      await moveByHold(storage, "2020-01-02");
      const at = { today: day };
      assert.equal(await purge(storage, { ...at, beforeDay: day }), 2, "the hold's daily and lease counters");
      assert.equal(await storage.billing.capSpent(LEGACY), 70n);
      assert.equal(
        await purge(storage, { ...at, beforeDay: nextDay(day) }),
        2,
        "both undated ones, a day later",
      );
      assert.equal(await storage.billing.capSpent(LEGACY), 0n);
    } finally {
      await storage.close();
      await sql.end();
    }
  } finally {
    await database.drop();
  }
});
