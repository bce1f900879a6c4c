/**
 * PostgreSQL's grouped key counts (storage/postgres/pg_key_usage_store.ts): the counts of different
 * keys made at the same time share one statement, each answered as its own step would be.
 */
import assert from "node:assert/strict";
import { openPgStorage } from "../../storage/postgres/pg_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { openTestDatabase } from "../support/test_postgres.ts";
import { keyRecord } from "../support/key_records.ts";

const WINDOW = { windowStartMs: 60_000, windowMs: 60_000, atMs: 61_000 };

/** A PostgreSQL storage with org_a and keys k0…k{n-1}; grouped and single count statements counted. */
async function withKeys(
  n: number,
  fn: (storage: Storage, sent: { grouped: number; alone: number }) => Promise<void>,
): Promise<void> {
  const db = await openTestDatabase();
  const sent = { grouped: 0, alone: 0 };
  const storage = await openPgStorage(db.url, {
    maxConnections: db.maxConnections,
    groupLoneItems: true,
    onStatement: (text) => {
      if (text.includes("AS u(key_id, bucket")) sent.grouped++;
      else if (text.includes("INSERT INTO rate_limit_windows")) sent.alone++;
    },
  });
  try {
    await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: 0 });
    await storage.orgs.create({ id: "org_b", name: "B", createdAtMs: 0 });
    for (let i = 0; i < n; i++) await storage.apiKeys.create(keyRecord(`k${i}`));
    await fn(storage, sent);
  } finally {
    await storage.close();
    await db.close();
  }
}

Deno.test("counts of many keys made at once share statements, each counted as its own step", async () => {
  await withKeys(20, async (storage, sent) => {
    await storage.keyUsage.count("k0", { ...WINDOW, orgId: "org_a", expectedVersion: 1, hits: 5 });
    const before = { ...sent };
    const uses = Array.from({ length: 20 }, (_, i) => ({
      keyId: `k${i}`,
      // k3 at a version it never had, k4 for another org: refused, nothing counted.
      use: {
        ...WINDOW,
        orgId: i === 4 ? "org_b" : "org_a",
        expectedVersion: i === 3 ? 2 : 1,
        hits: 1 + (i % 3),
      },
    }));
    const results = await Promise.all(uses.map(({ keyId, use }) => storage.keyUsage.count(keyId, use)));
    assert.ok(sent.grouped - before.grouped <= 4, `20 counts in ${sent.grouped - before.grouped} statements`);
    assert.equal(sent.alone, before.alone, "none counted alone");
    const account = await storage.billing.getAccount("org_a");
    for (const [i, result] of results.entries()) {
      if (i === 3 || i === 4) {
        assert.equal(result, null, `k${i} refused`);
        continue;
      }
      const count = (i === 0 ? 5 : 0) + 1 + (i % 3);
      assert.deepEqual(result, { count, account, defaultMinerHotkey: null }, `k${i}`);
    }
    assert.equal(await storage.rateLimits.hit("key:k3", WINDOW), 1, "the refused count added nothing");
    assert.equal((await storage.apiKeys.get("k7"))?.lastUsedAt, "1970-01-01T00:01:01.000Z");
  });
});

Deno.test("a group whose statement fails counts each key alone: only the failing count fails", async () => {
  await withKeys(6, async (storage) => {
    // k2's hits overflow the window's INTEGER count: its group's statement fails as a whole.
    const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) =>
      storage.keyUsage.count(`k${i}`, {
        ...WINDOW,
        orgId: "org_a",
        expectedVersion: 1,
        hits: i === 2 ? 3_000_000_000 : 2,
      }).then((counted) => counted?.count ?? null, (error) => String(error))));
    assert.match(String(outcomes[2]), /out of range/);
    assert.deepEqual(outcomes.toSpliced(2, 1), [2, 2, 2, 2, 2]);
    assert.equal(await storage.rateLimits.hit("key:k2", WINDOW), 1, "nothing counted for k2");
  });
});
