/**
 * Where PgBillingStore sends a commit: changes that only release holds go to the hold pool
 * (sessions with `synchronous_commit = off` in `openPgStorage`); reserves and changes that move
 * money (a ledger entry, a usage record) to the durable pool; a lone change takes the per-change
 * statement.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { openPgStorage } from "../../storage/postgres/pg_storage.ts";
import { PgBillingStore } from "../../storage/postgres/pg_billing_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { ledgerSum } from "../support/ledger.ts";
import { openTestDatabase } from "../support/test_postgres.ts";

const GROUPED = "AS c(org_id, idx";
const PER_CHANGE = "UPDATE orgs SET balance_micro = balance_micro +";

/** A postgres.js client whose account statements are recorded by kind. */
function countingClient(url: string, seen: string[]) {
  return postgres(url, {
    max: 2,
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    debug: (_connection: number, text: string) => {
      if (text.includes(GROUPED)) seen.push("grouped");
      else if (text.includes(PER_CHANGE)) seen.push("per-change");
    },
  });
}

function hold(id: string) {
  return { id, amountMicro: 100n, createdAtMs: 10, expiresAtMs: 60_010 };
}

/** A billing store on a test database whose two pools record their statements; org_a credited 1,000. */
async function withRecordedPools(
  fn: (
    billing: PgBillingStore,
    seen: { durable: string[]; holds: string[] },
    storage: Storage,
  ) => Promise<void>,
): Promise<void> {
  const db = await openTestDatabase();
  const storage = await openPgStorage(db.url, { maxConnections: db.maxConnections });
  const seen = { durable: [] as string[], holds: [] as string[] };
  const durableSql = countingClient(db.url, seen.durable);
  const holdSql = countingClient(db.url, seen.holds);
  try {
    await storage.orgs.create({ id: "org_a", name: "a", createdAtMs: 0 });
    const billing = new PgBillingStore(durableSql, { holdSql });
    await billing.commit("org_a", {
      atMs: 1,
      entry: { kind: "credit", amountMicro: 1_000n, reference: "r" },
    });
    await fn(billing, seen, storage);
  } finally {
    await Promise.all([durableSql.end(), holdSql.end()]);
    await storage.close();
    await db.close();
  }
}

Deno.test("releases go to the hold pool; reserves and money moves to the durable pool", async () => {
  await withRecordedPools(async (billing, { durable, holds }, storage) => {
    await billing.commit("org_a", { atMs: 2, addHold: hold("h1") });
    await billing.commit("org_a", { atMs: 3, addHold: hold("h2") });
    await billing.commit("org_a", { atMs: 4, removeHoldId: "h2" });
    const settled = await billing.commit("org_a", {
      atMs: 5,
      removeHoldId: "h1",
      entry: { kind: "debit", amountMicro: -30n, holdId: "h1" },
      usage: {
        keyId: null,
        minerHotkey: null,
        description: "echo",
        metadata: {},
        holdId: "h1",
        amountMicro: 30n,
      },
    });
    assert.deepEqual(settled, { balanceMicro: 970n, heldMicro: 0n, lastUsageAtMs: 5, version: 5 });
    // Lone changes take the per-change statement; the credit is not a plain change (no group).
    assert.deepEqual(holds, ["per-change"], "the release");
    assert.deepEqual(
      durable,
      ["per-change", "per-change", "per-change", "per-change"],
      "credit, reserves, settle",
    );
    assert.equal(await ledgerSum(storage.billing, "org_a"), 970n);
    assert.deepEqual(await storage.billing.listHolds("org_a"), []);
  });
});

Deno.test("a batch of releases goes to the hold pool, a batch with a reserve or a settle to the durable pool", async () => {
  await withRecordedPools(async (billing, { durable, holds }, storage) => {
    durable.length = 0;
    await billing.commitBatch("org_a", [
      { atMs: 2, addHold: hold("h1") },
      { atMs: 2, addHold: hold("h2") },
      { atMs: 2, addHold: hold("h3") },
    ]);
    assert.deepEqual([holds, durable], [[], ["grouped"]]);
    await billing.commitBatch("org_a", [{ atMs: 3, removeHoldId: "h1" }, { atMs: 3, removeHoldId: "h3" }]);
    assert.deepEqual([holds, durable], [["grouped"], ["grouped"]]);
    await billing.commitBatch("org_a", [
      { atMs: 4, removeHoldId: "h2", entry: { kind: "debit", amountMicro: -10n, holdId: "h2" } },
      { atMs: 4, addHold: hold("h4") },
    ]);
    assert.deepEqual([holds, durable], [["grouped"], ["grouped", "grouped"]]);
    await billing.commit("org_a", { atMs: 5, removeHoldId: "h4" });
    assert.equal(await ledgerSum(storage.billing, "org_a"), 990n);
    assert.equal((await storage.billing.getAccount("org_a"))?.heldMicro, 0n);
  });
});
