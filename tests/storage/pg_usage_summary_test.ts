/**
 * PostgreSQL's usage summary (migration 023): the trigger counts the records of every statement
 * that inserts them — the grouped commit of several orgs too — and the migration counts the
 * records stored before it.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { PGlite } from "@electric-sql/pglite";
import { openPgStorage } from "../../storage/postgres/pg_storage.ts";
import { createScratchDatabase } from "../../scripts/bench/world/scratch_database.ts";
import type { Storage } from "../../storage/storage.ts";
import { QUARTER_MS, USAGE_DIMENSIONS } from "../../storage/usage_store.ts";
import { openTestDatabase } from "../support/test_postgres.ts";
import { PgliteServer } from "../support/pglite_server.ts";
import { seeded } from "../support/populated/world_random.ts";
import { ledgerDebits, randomCalls, settleCalls } from "../support/usage_calls.ts";

const START = Date.UTC(2026, 5, 1);
const SPAN_MS = 86_400_000;
const WHOLE = { fromMs: START - QUARTER_MS, toMs: START + SPAN_MS + QUARTER_MS };
const DAYS = [WHOLE.fromMs / QUARTER_MS, WHOLE.toMs / QUARTER_MS];

async function fundedOrg(storage: Storage, orgId: string): Promise<void> {
  await storage.orgs.create({ id: orgId, name: orgId, createdAtMs: 0 });
  await storage.billing.commit(orgId, {
    atMs: 0,
    entry: { kind: "credit", amountMicro: 10n ** 12n, reference: "r" },
  });
}

/** Each dimension's Σ over the whole span equals the org's ledger debits. */
async function assertSummaryMatchesLedger(storage: Storage, orgId: string): Promise<void> {
  const ledger = await ledgerDebits(storage.billing, orgId, WHOLE);
  assert.ok(ledger.calls > 0);
  for (const dimension of USAGE_DIMENSIONS) {
    const rows = await storage.usage.daily(orgId, { dimension, dayStarts: DAYS });
    assert.deepEqual(
      {
        spendMicro: rows.reduce((sum, row) => sum + row.spendMicro, 0n),
        calls: rows.reduce((sum, row) => sum + row.calls, 0),
      },
      ledger,
      `${orgId} by ${dimension}`,
    );
  }
}

Deno.test("the grouped commit of several orgs' settles adds each org's calls to its own buckets", async () => {
  const db = await openTestDatabase();
  let grouped = 0;
  const storage = await openPgStorage(db.url, {
    maxConnections: db.maxConnections,
    groupLoneItems: true,
    onStatement: (text) => {
      if (text.includes("AS c(org_id, idx")) grouped++;
    },
  });
  try {
    const random = seeded("grouped usage");
    const orgs = ["org_a", "org_b", "org_c"];
    for (const orgId of orgs) await fundedOrg(storage, orgId);
    await Promise.all(
      orgs.map((orgId) =>
        settleCalls(
          storage.billing,
          orgId,
          randomCalls(random, { count: 30, fromMs: START, spanMs: SPAN_MS }),
          {
            batch: (i) => 1 + (i % 3),
          },
        )
      ),
    );
    assert.ok(grouped > 0, "settles went through the grouped statement");
    for (const orgId of orgs) await assertSummaryMatchesLedger(storage, orgId);
  } finally {
    await storage.close();
    await db.close();
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

Deno.test("migration 023 counts the usage records stored before it, once", async () => {
  const database = await emptyDatabase();
  try {
    const calls = randomCalls(seeded("usage before 023"), { count: 40, fromMs: START, spanMs: SPAN_MS });
    const before = await openPgStorage(database.url, { maxConnections: 2 });
    // Records stored, then taken out of the summary as a database made before migration 023
    // would have them; the next open runs the migration again.
    await fundedOrg(before, "org_a");
    await settleCalls(before.billing, "org_a", calls, { batch: (i) => 1 + (i % 2) });
    const admin = postgres(database.url, { max: 1, onnotice: () => {} });
    await admin`DELETE FROM org_usage_buckets`;
    await admin`DELETE FROM schema_migrations WHERE name = '023_usage_summary.sql'`;
    await admin.end();
    await before.close();

    const storage = await openPgStorage(database.url, { maxConnections: 2 });
    try {
      await assertSummaryMatchesLedger(storage, "org_a");
      await settleCalls(
        storage.billing,
        "org_a",
        randomCalls(seeded("usage after 023"), {
          count: 5,
          fromMs: START,
          spanMs: SPAN_MS,
        }),
        { batch: () => 1 },
      );
      await assertSummaryMatchesLedger(storage, "org_a");
    } finally {
      await storage.close();
    }
  } finally {
    await database.drop();
  }
});
