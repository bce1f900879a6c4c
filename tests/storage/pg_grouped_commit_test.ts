/**
 * PostgreSQL's grouped commits (storage/postgres/_pg_grouped_commit.ts): the plain commits of
 * several orgs made at the same time share one set-based statement, and each org's changes are
 * applied, refused or failed exactly as the per-change path would do it alone.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { openPgStorage } from "../../storage/postgres/pg_storage.ts";
import type { AccountChange } from "../../storage/billing_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { openTestDatabase, realPostgres } from "../support/test_postgres.ts";
import { allLedgerEntries, ledgerSum } from "../support/ledger.ts";

const USAGE = { keyId: "k1", minerHotkey: null, description: "echo/echo-1", metadata: { tokens: 3 } };

/** Statements sent so far: grouped ones (they `unnest` changes) and per-change account statements. */
interface Sent {
  grouped: number;
  perChange: number;
}

/** A PostgreSQL storage whose statements are counted (`Sent`). */
async function countedStorage(
  fn: (storage: Storage, sent: Sent, url: string) => Promise<void>,
): Promise<void> {
  const db = await openTestDatabase();
  const sent = { grouped: 0, perChange: 0 };
  const storage = await openPgStorage(db.url, {
    maxConnections: db.maxConnections,
    groupLoneItems: true,
    onStatement: (text) => {
      if (text.includes("AS c(org_id, idx")) sent.grouped++;
      if (text.includes("UPDATE orgs SET balance_micro = balance_micro +")) sent.perChange++;
    },
  });
  try {
    await fn(storage, sent, db.url);
  } finally {
    await storage.close();
    await db.close();
  }
}

/** Creates `orgId` with 1,000 credited and hold h1 of 100. */
async function fundedOrg(storage: Storage, orgId: string): Promise<void> {
  await storage.orgs.create({ id: orgId, name: orgId, createdAtMs: 0 });
  await storage.billing.commit(orgId, {
    atMs: 1,
    entry: { kind: "credit", amountMicro: 1_000n, reference: "r" },
  });
  await storage.billing.commit(orgId, { atMs: 2, addHold: hold("h1", 100n) });
}

function hold(id: string, amountMicro: bigint) {
  return { id, amountMicro, createdAtMs: 10, expiresAtMs: 60_010 };
}

function settle(holdId: string, costMicro: bigint): AccountChange {
  return {
    atMs: 20,
    removeHoldId: holdId,
    entry: { kind: "debit", amountMicro: -costMicro, holdId },
    usage: { ...USAGE, holdId, amountMicro: costMicro },
  };
}

async function audit(storage: Storage, orgId: string) {
  const account = await storage.billing.getAccount(orgId);
  assert.equal(
    await ledgerSum(storage.billing, orgId),
    account?.balanceMicro,
    `${orgId}: balance == Σ ledger`,
  );
  const holds = await storage.billing.listHolds(orgId);
  assert.equal(
    holds.reduce((sum, h) => sum + h.amountMicro, 0n),
    account?.heldMicro,
    `${orgId}: held == Σ holds`,
  );
  return { account, holds: holds.map((h) => h.id) };
}

Deno.test("commits of many orgs made at once share statements, each org's as if alone", async () => {
  await countedStorage(async (storage, sent) => {
    const orgs = Array.from({ length: 12 }, (_, i) => `org_${i}`);
    for (const orgId of orgs) await fundedOrg(storage, orgId);
    const before = { ...sent };
    // Even orgs: everything fits. Odd orgs: the last reserve does not (640 available): all refused.
    const results = await Promise.all(orgs.map((orgId, i) =>
      storage.billing.commitBatch(orgId, [
        { atMs: 20, addHold: hold("h2", 300n) },
        settle("h1", 60n),
        { atMs: 20, addHold: hold("h3", i % 2 === 0 ? 600n : 700n) },
      ])
    ));
    const statements = sent.grouped - before.grouped;
    assert.ok(statements >= 1 && statements <= 4, `12 orgs in ${statements} grouped statements`);
    assert.equal(sent.perChange, before.perChange, "none committed alone");
    for (const [i, orgId] of orgs.entries()) {
      if (i % 2 === 1) {
        assert.equal(results[i], null, `${orgId} refused`);
        const { account, holds } = await audit(storage, orgId);
        assert.deepEqual([account?.balanceMicro, account?.heldMicro, account?.version, holds], [
          1_000n,
          100n,
          2,
          ["h1"],
        ]);
        continue;
      }
      assert.deepEqual(results[i], [
        { balanceMicro: 1_000n, heldMicro: 400n, lastUsageAtMs: null, version: 3 },
        { balanceMicro: 940n, heldMicro: 300n, lastUsageAtMs: 20, version: 4 },
        { balanceMicro: 940n, heldMicro: 900n, lastUsageAtMs: 20, version: 5 },
      ]);
      const { holds } = await audit(storage, orgId);
      assert.deepEqual(holds, ["h2", "h3"]);
      const [debit] = await allLedgerEntries(storage.billing, orgId);
      assert.deepEqual(debit, {
        seq: 4,
        atMs: 20,
        kind: "debit",
        amountMicro: -60n,
        balanceAfterMicro: 940n,
        reference: null,
        holdId: "h1",
      });
      const [usage] = await storage.billing.listUsage(orgId, { limit: 5 });
      assert.deepEqual(usage, { ...USAGE, seq: 4, atMs: 20, holdId: "h1", amountMicro: 60n });
      assert.equal((await storage.billing.findReservation(orgId, "h3"))?.amountMicro, 600n);
    }
  });
});

Deno.test("in a grouped statement each new hold must fit where it stands in its org's batch", async () => {
  await countedStorage(async (storage, sent) => {
    for (const orgId of ["org_a", "org_b", "org_c"]) await fundedOrg(storage, orgId); // 900 available each
    const before = { ...sent };
    const release: AccountChange = { atMs: 20, removeHoldId: "h1" };
    const [a, b, c] = await Promise.all([
      // 900 -> 400, +100 -> 500, 500 fits exactly.
      storage.billing.commitBatch("org_a", [{ atMs: 20, addHold: hold("x", 500n) }, release, {
        atMs: 20,
        addHold: hold("y", 500n),
      }]),
      // The second hold does not fit where it stands (400 < 500), though the release after it frees enough.
      storage.billing.commitBatch("org_b", [{ atMs: 20, addHold: hold("x", 500n) }, {
        atMs: 20,
        addHold: hold("y", 500n),
      }, release]),
      // A hold id used before (h1, still held) is refused: its reservation exists.
      storage.billing.commitBatch("org_c", [{ atMs: 20, addHold: hold("z", 50n) }, {
        atMs: 20,
        addHold: hold("h1", 50n),
      }]),
    ]);
    assert.equal(sent.perChange, before.perChange, "none committed alone");
    assert.deepEqual(a?.at(-1), { balanceMicro: 1_000n, heldMicro: 1_000n, lastUsageAtMs: null, version: 5 });
    assert.deepEqual([b, c], [null, null]);
    assert.deepEqual((await audit(storage, "org_a")).holds, ["x", "y"]);
    for (const orgId of ["org_b", "org_c"]) assert.deepEqual((await audit(storage, orgId)).holds, ["h1"]);
  });
});

Deno.test("a group whose statement fails commits each org alone: only the failing one fails", async () => {
  await countedStorage(async (storage) => {
    const orgs = Array.from({ length: 8 }, (_, i) => `org_${i}`);
    for (const orgId of orgs) await fundedOrg(storage, orgId);
    // org_4's hold of 0 breaks the table's CHECK: the statement of its group fails as a whole.
    const calls = orgs.map((orgId) =>
      storage.billing.commit(orgId, { atMs: 20, addHold: hold("h2", orgId === "org_4" ? 0n : 50n) })
        .then((next) => ({ next }), (error) => ({ error: String(error) }))
    );
    const outcomes = await Promise.all(calls);
    for (const [i, orgId] of orgs.entries()) {
      const outcome = outcomes[i]!;
      if (orgId === "org_4") {
        assert.ok("error" in outcome && /check/i.test(outcome.error), JSON.stringify(outcome));
        assert.deepEqual((await audit(storage, orgId)).holds, ["h1"], "nothing of it written");
        continue;
      }
      assert.deepEqual(outcome, {
        next: { balanceMicro: 1_000n, heldMicro: 150n, lastUsageAtMs: null, version: 3 },
      });
      assert.deepEqual((await audit(storage, orgId)).holds, ["h1", "h2"]);
    }
  });
});

Deno.test("capped holds of one lease released in one grouped statement keep the lease counter's latest day", async () => {
  await countedStorage(async (storage, sent) => {
    await fundedOrg(storage, "org_a");
    const limits = { dailyMicro: 100n, leaseMicro: 100n };
    for (const [id, day] of [["c1", "1970-01-01"], ["c3", "1970-01-03"]] as const) {
      const capped = { ...hold(id, 10n), cap: { minerHotkey: "miner", day, agentPredictionId: "ap_1" } };
      assert.ok(await storage.billing.commit("org_a", { atMs: 3, addHold: capped, capLimits: limits }));
    }
    const before = sent.grouped;
    assert.ok(
      await storage.billing.commitBatch("org_a", [{ atMs: 4, removeHoldId: "c3" }, {
        atMs: 4,
        removeHoldId: "c1",
      }]),
    );
    assert.equal(sent.grouped - before, 1, "grouped");
    assert.equal(await storage.billing.capSpent({ cap: "lease", agentPredictionId: "ap_1" }), 0n);
    const purge = (beforeDay: string) =>
      storage.billing.purgeSpendCounters({ beforeDay, today: "1970-01-05", limit: 9 });
    assert.deepEqual(await purge("1970-01-03"), { purged: 1, next: null }, "the first day's daily counter");
    assert.deepEqual(
      await purge("1970-01-04"),
      { purged: 2, next: null },
      "then the lease, dated 1970-01-03",
    );
  });
});

Deno.test("a capped hold released in a grouped statement moves its miner's counter back there", async () => {
  await countedStorage(async (storage, sent) => {
    await fundedOrg(storage, "org_a");
    const capped = { ...hold("c1", 40n), cap: { minerHotkey: "miner", day: "1970-01-01" } };
    await storage.billing.commit("org_a", { atMs: 3, addHold: capped, capLimits: { dailyMicro: 100n } });
    assert.equal(
      await storage.billing.capSpent({ cap: "daily", minerHotkey: "miner", day: "1970-01-01" }),
      40n,
    );
    const before = { ...sent };
    const next = await storage.billing.commit("org_a", { atMs: 4, removeHoldId: "c1" });
    assert.deepEqual(
      [sent.grouped - before.grouped, sent.perChange - before.perChange],
      [1, 0],
      "grouped",
    );
    assert.deepEqual(next, { balanceMicro: 1_000n, heldMicro: 100n, lastUsageAtMs: null, version: 4 });
    assert.equal(
      await storage.billing.capSpent({ cap: "daily", minerHotkey: "miner", day: "1970-01-01" }),
      0n,
    );
    assert.deepEqual((await audit(storage, "org_a")).holds, ["h1"]);
  });
});

Deno.test({
  name: realPostgres
    ? "a grouped statement that waits for another instance's commit applies on the account as that commit left it"
    : "a grouped statement that waits for another commit (ignored: needs DATABASE_URL)",
  ignore: !realPostgres,
  fn: async () => {
    await countedStorage(async (storage, sent, url) => {
      await fundedOrg(storage, "org_a");
      const before = { ...sent };
      const other = postgres(url, { max: 2, onnotice: () => {} });
      try {
        // Another instance holds the org's row while it credits 5: the settle below waits for it.
        const credit = other.begin(async (tx) => {
          await tx`SELECT 1 FROM orgs WHERE id = 'org_a' FOR UPDATE`;
          const settled = storage.billing.commit("org_a", settle("h1", 30n));
          await waitForLockWait(other);
          await tx`UPDATE orgs SET balance_micro = balance_micro + 5, version = version + 1 WHERE id = 'org_a'`;
          await tx`INSERT INTO org_ledger (org_id, seq, at_ms, kind, amount_micro, balance_after_micro, reference)
            VALUES ('org_a', 3, 15, 'credit', 5, 1005, 'late')`;
          return { settled }; // not awaited here: it waits for this transaction's lock
        });
        const next = await (await credit).settled;
        assert.deepEqual(next, { balanceMicro: 975n, heldMicro: 0n, lastUsageAtMs: 20, version: 4 });
        assert.deepEqual(
          [sent.grouped - before.grouped, sent.perChange - before.perChange],
          [1, 0],
          "grouped",
        );
        const { account, holds } = await audit(storage, "org_a");
        assert.deepEqual([account?.balanceMicro, holds], [975n, []]);
        const [debit] = await allLedgerEntries(storage.billing, "org_a");
        assert.deepEqual([debit?.seq, debit?.balanceAfterMicro], [4, 975n]);
      } finally {
        await other.end();
      }
    });
  },
});

/** Resolves once some other backend waits for a lock (the grouped statement, on the org's row). */
async function waitForLockWait(sql: postgres.Sql): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const [row] = await sql`SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND datname = current_database()`;
    if (row!.waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the commit never waited for the row lock");
}
