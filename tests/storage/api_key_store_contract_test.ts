import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import type { ApiKeyRecord, KeyUse } from "../../storage/api_key_store.ts";
import type { Storage } from "../../storage/storage.ts";

function record(keyId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    keyId,
    orgId: "org_a",
    name: "ci key",
    scopes: ["billing:read", "gateway:write"],
    rateLimitRpm: 60,
    createdAt: "2026-01-01T00:00:00.000Z",
    secretHash: "ab".repeat(32),
    ...overrides,
  };
}

adapterTest("api key store creates a key once and reads it back with version 1", async ({ storage }) => {
  const key = record("k1", { pinnedMinerHotkey: "5Hot", expiresAt: "2027-01-01T00:00:00.000Z" });
  const created = await storage.apiKeys.create(key);
  assert.deepEqual(created, { ...key, version: 1 });
  assert.deepEqual(await storage.apiKeys.get("k1"), { ...key, version: 1 });
  assert.equal(await storage.apiKeys.create(record("k1", { name: "other" })), null);
  assert.equal(await storage.apiKeys.get("missing"), null);
});

adapterTest("api key store updates only at the expected version and bumps it", async ({ storage }) => {
  await storage.apiKeys.create(record("k1"));
  const revoked = await storage.apiKeys.update(record("k1", { revokedAt: "2026-01-02T00:00:00.000Z" }), 1);
  assert.equal(revoked?.version, 2);
  assert.equal(revoked?.revokedAt, "2026-01-02T00:00:00.000Z");
  assert.equal(await storage.apiKeys.update(record("k1", { name: "stale" }), 1), null);
  assert.equal((await storage.apiKeys.get("k1"))?.name, "ci key");
  assert.equal(await storage.apiKeys.update(record("nope"), 1), null);
});

adapterTest(
  "api key store deletes at the expected version and drops the key from its org",
  async ({ storage }) => {
    await storage.apiKeys.create(record("k1"));
    await storage.apiKeys.create(record("k2", { createdAt: "2026-01-01T00:00:01.000Z" }));
    assert.equal(await storage.apiKeys.delete("k1", 7), false);
    assert.equal(await storage.apiKeys.delete("k1", 1), true);
    assert.equal(await storage.apiKeys.get("k1"), null);
    assert.deepEqual((await storage.apiKeys.listByOrg("org_a")).map((key) => key.keyId), ["k2"]);
    assert.equal(await storage.apiKeys.delete("k1", 1), false);
  },
);

adapterTest("api key store lists an org's keys oldest first and no other org's", async ({ storage }) => {
  await storage.apiKeys.create(record("kb", { createdAt: "2026-01-01T00:00:02.000Z" }));
  await storage.apiKeys.create(record("ka", { createdAt: "2026-01-01T00:00:01.000Z" }));
  await storage.apiKeys.create(record("kc", { orgId: "org_b" }));
  assert.deepEqual((await storage.apiKeys.listByOrg("org_a")).map((key) => key.keyId), ["ka", "kb"]);
  assert.deepEqual(await storage.apiKeys.listByOrg("org_none"), []);
});

adapterTest("api key store changes made on one handle are seen at once on another", async (adapter) => {
  const other = await adapter.openAnother();
  await adapter.storage.apiKeys.create(record("k1"));
  assert.equal((await other.apiKeys.get("k1"))?.version, 1);
  await other.apiKeys.update(record("k1", { revokedAt: "2026-01-02T00:00:00.000Z" }), 1);
  assert.equal((await adapter.storage.apiKeys.get("k1"))?.revokedAt, "2026-01-02T00:00:00.000Z");
});

adapterTest("rate limit store counts hits per bucket and window", async ({ storage }) => {
  const counts = [];
  for (let i = 0; i < 3; i++) {
    counts.push(await storage.rateLimits.hit("key:a", { windowStartMs: 60_000, windowMs: 60_000 }));
  }
  assert.deepEqual(counts, [1, 2, 3]);
  assert.equal(await storage.rateLimits.hit("key:b", { windowStartMs: 60_000, windowMs: 60_000 }), 1);
  assert.equal(await storage.rateLimits.hit("key:a", { windowStartMs: 120_000, windowMs: 60_000 }), 1);
});

adapterTest(
  "rate limit store counts racing hits from two handles exactly",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    const handles = [adapter.storage, other];
    const hits = Array.from(
      { length: 40 },
      (_, i) => handles[i % 2]!.rateLimits.hit("key:race", { windowStartMs: 0, windowMs: 60_000 }),
    );
    const counts = (await Promise.all(hits)).toSorted((a, b) => a - b);
    assert.deepEqual(counts, Array.from({ length: 40 }, (_, i) => i + 1));
  },
);

adapterTest("rate limit store purges ended windows (or lets storage expire them)", async ({ storage }) => {
  await storage.rateLimits.hit("key:a", { windowStartMs: 0, windowMs: 60_000 });
  await storage.rateLimits.hit("key:a", { windowStartMs: 60_000, windowMs: 60_000 });
  const purged = await storage.rateLimits.purgeEnded(60_000);
  assert.equal(purged, storage.kind === "postgres" ? 1 : 0);
  assert.equal(await storage.rateLimits.hit("key:a", { windowStartMs: 60_000, windowMs: 60_000 }), 2);
});

const WINDOW = { windowStartMs: 60_000, windowMs: 60_000, atMs: 61_000 };

/** Creates org_a, whose keys `record` makes. */
async function createOrgA(storage: Storage): Promise<void> {
  assert.equal(await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: 0 }), true);
}

/** Counts uses of a key of org_a as its KeyUsageActor does: the window's count, or null. */
async function countUse(storage: Storage, keyId: string, use: KeyUse): Promise<number | null> {
  return (await storage.billing.countKeyUse(keyId, { ...use, orgId: "org_a" }))?.count ?? null;
}

adapterTest(
  "billing store countKeyUse counts in the key's window only while the key is at the version",
  async ({ storage }) => {
    await createOrgA(storage);
    await storage.apiKeys.create(record("k1"));
    assert.equal(await countUse(storage, "k1", { ...WINDOW, expectedVersion: 1 }), 1);
    assert.equal(await countUse(storage, "k1", { ...WINDOW, expectedVersion: 1, hits: 3 }), 4);
    assert.equal(await countUse(storage, "k1", { ...WINDOW, expectedVersion: 1 }), 5);
    assert.equal(await countUse(storage, "k1", { ...WINDOW, expectedVersion: 2 }), null);
    await storage.apiKeys.update(record("k1", { revokedAt: "2026-01-06T00:00:00.000Z" }), 1);
    assert.equal(await countUse(storage, "k1", { ...WINDOW, expectedVersion: 1 }), null);
    assert.equal(await storage.rateLimits.hit("key:k1", WINDOW), 6, "refused uses were not counted");
    assert.equal(await countUse(storage, "k1", { ...WINDOW, expectedVersion: 2 }), 7);
    await storage.apiKeys.delete("k1", 2);
    assert.equal(await countUse(storage, "k1", { ...WINDOW, expectedVersion: 2 }), null);
    assert.equal(await countUse(storage, "missing", { ...WINDOW, expectedVersion: 1 }), null);
  },
);

adapterTest(
  "billing store countKeyUse returns the org's account with the count; another org's key or an org without account counts nothing",
  async ({ storage }) => {
    await storage.apiKeys.create(record("k1"));
    await storage.apiKeys.create(record("k9", { orgId: "org_x" }));
    await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: 0 });
    await storage.orgs.create({ id: "org_b", name: "B", createdAtMs: 0 });
    const counted = await storage.billing.countKeyUse("k1", {
      orgId: "org_a",
      ...WINDOW,
      expectedVersion: 1,
      hits: 2,
    });
    assert.deepEqual(counted, { count: 2, account: await storage.billing.getAccount("org_a") });
    assert.equal(counted?.account.balanceMicro, 0n);
    assert.equal(
      await storage.billing.countKeyUse("k1", { ...WINDOW, orgId: "org_b", expectedVersion: 1 }),
      null,
    );
    assert.equal(
      await storage.billing.countKeyUse("k9", { ...WINDOW, orgId: "org_x", expectedVersion: 1 }),
      null,
    );
    assert.equal(
      await storage.rateLimits.hit("key:k9", WINDOW),
      1,
      "nothing counted for the org without account",
    );
    assert.equal(await countUse(storage, "k1", { ...WINDOW, expectedVersion: 1 }), 3, "nor for another org");
  },
);

adapterTest(
  "billing store countKeyUse racing from two handles counts every hit exactly once",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    await adapter.storage.apiKeys.create(record("k1"));
    await createOrgA(adapter.storage);
    const handles = [adapter.storage, other];
    const uses = Array.from(
      { length: 30 },
      (_, i) => countUse(handles[i % 2]!, "k1", { ...WINDOW, expectedVersion: 1, hits: 1 + (i % 3) }),
    );
    const counts = await Promise.all(uses);
    assert.equal(Math.max(...counts.map(Number)), 60);
    assert.equal(new Set(counts).size, 30);
  },
);

const NEXT_WINDOW = { windowStartMs: 120_000, windowMs: 60_000 };

adapterTest(
  "billing store countKeyUse records lastUsedAt once per window, beside the key, without changing it",
  async ({ storage }) => {
    await createOrgA(storage);
    const keys = storage.apiKeys;
    await keys.create(record("k1"));
    await keys.create(record("k2"));
    await countUse(storage, "k1", { ...WINDOW, expectedVersion: 1, atMs: 61_500, hits: 2 });
    await countUse(storage, "k1", { ...WINDOW, expectedVersion: 1, atMs: 62_000 });
    await countUse(storage, "k2", { ...WINDOW, expectedVersion: 9, atMs: 62_000 });
    const used = { ...record("k1"), lastUsedAt: "1970-01-01T00:01:01.500Z", version: 1 };
    assert.deepEqual(await keys.get("k1"), used, "the first use of the window, and still version 1");
    assert.equal((await keys.get("k2"))?.lastUsedAt, undefined, "a refused use is not a use");
    await countUse(storage, "k1", { ...NEXT_WINDOW, atMs: 125_000, expectedVersion: 1 });
    assert.equal(
      (await keys.get("k1"))?.lastUsedAt,
      "1970-01-01T00:02:05.000Z",
      "a new window records again",
    );
    assert.deepEqual((await keys.listByOrg("org_a")).map((k) => [k.keyId, k.lastUsedAt]), [
      ["k1", "1970-01-01T00:02:05.000Z"],
      ["k2", undefined],
    ]);
  },
);

adapterTest(
  "api key store update keeps lastUsedAt (it cannot set it) and delete forgets it",
  async ({ storage }) => {
    await createOrgA(storage);
    const keys = storage.apiKeys;
    await keys.create(record("k1"));
    await countUse(storage, "k1", { ...WINDOW, expectedVersion: 1, atMs: 61_500 });
    const revoked = await keys.update(record("k1", { revokedAt: "2026-01-06T00:00:00.000Z" }), 1);
    assert.equal(revoked?.lastUsedAt, "1970-01-01T00:01:01.500Z");
    const forged = await keys.update(record("k1", { lastUsedAt: "2030-01-01T00:00:00.000Z" }), 2);
    assert.equal(forged?.lastUsedAt, "1970-01-01T00:01:01.500Z");
    assert.equal((await keys.get("k1"))?.lastUsedAt, "1970-01-01T00:01:01.500Z");
    assert.equal(await keys.delete("k1", 3), true);
    await keys.create(record("k1"));
    assert.equal((await keys.get("k1"))?.lastUsedAt, undefined, "a key created again starts unused");
  },
);
