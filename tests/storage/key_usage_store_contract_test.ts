import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { keyRecord as record } from "../support/key_records.ts";
import type { OrgKeyUse } from "../../storage/key_usage_store.ts";
import type { Storage } from "../../storage/storage.ts";

type Use = Omit<OrgKeyUse, "orgId">;

const WINDOW = { windowStartMs: 60_000, windowMs: 60_000, atMs: 61_000 };

/** Creates org_a, whose keys `record` makes. */
async function createOrgA(storage: Storage): Promise<void> {
  assert.equal(await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: 0 }), true);
}

/** Counts uses of a key of org_a as its KeyUsageActor does: the window's count, or null. */
async function countUse(storage: Storage, keyId: string, use: Use): Promise<number | null> {
  return (await storage.keyUsage.count(keyId, { ...use, orgId: "org_a" }))?.count ?? null;
}

adapterTest(
  "key usage store counts in the key's window only while the key is at the version",
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
  "key usage store returns the org's account with the count; another org's key or an org without account counts nothing",
  async ({ storage }) => {
    await storage.apiKeys.create(record("k1"));
    await storage.apiKeys.create(record("k9", { orgId: "org_x" }));
    await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: 0 });
    await storage.orgs.create({ id: "org_b", name: "B", createdAtMs: 0 });
    const counted = await storage.keyUsage.count("k1", {
      orgId: "org_a",
      ...WINDOW,
      expectedVersion: 1,
      hits: 2,
    });
    assert.deepEqual(counted, {
      count: 2,
      account: await storage.billing.getAccount("org_a"),
      defaultMinerHotkey: null,
    });
    assert.equal(counted?.account.balanceMicro, 0n);
    assert.equal(
      await storage.keyUsage.count("k1", { ...WINDOW, orgId: "org_b", expectedVersion: 1 }),
      null,
    );
    assert.equal(
      await storage.keyUsage.count("k9", { ...WINDOW, orgId: "org_x", expectedVersion: 1 }),
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
  "key usage store reads the account as the latest money commit left it, and never writes it",
  async ({ storage }) => {
    await createOrgA(storage);
    await storage.apiKeys.create(record("k1"));
    const credited = await storage.billing.commit("org_a", {
      atMs: 1_000,
      entry: { kind: "credit", amountMicro: 500n, reference: "r1" },
    });
    const held = await storage.billing.commit("org_a", {
      atMs: 2_000,
      addHold: { id: "h1", amountMicro: 120n, createdAtMs: 2_000, expiresAtMs: 62_000 },
    });
    assert.deepEqual(held, { balanceMicro: 500n, heldMicro: 120n, lastUsageAtMs: null, version: 2 });
    const counted = await storage.keyUsage.count("k1", { ...WINDOW, orgId: "org_a", expectedVersion: 1 });
    assert.deepEqual(counted, { count: 1, account: held, defaultMinerHotkey: null });
    assert.notDeepEqual(counted?.account, credited, "not an older version of the account");
    assert.deepEqual(await storage.billing.getAccount("org_a"), held, "counting did not change the account");
  },
);

adapterTest(
  "key usage store reads the org's default miner with the count, as it is at that step",
  async ({ storage }) => {
    await createOrgA(storage);
    await storage.apiKeys.create(record("k1"));
    const use = { ...WINDOW, orgId: "org_a", expectedVersion: 1 };
    assert.equal((await storage.keyUsage.count("k1", use))?.defaultMinerHotkey, null);
    const hotkey = "5GrwvaEF5zXb26Fz9rcQpDWS57CtERHpNehXCPcNoHGKutQY";
    await storage.orgs.registerMiner("org_a", hotkey, { atMs: 1, makeDefault: true });
    assert.equal((await storage.keyUsage.count("k1", use))?.defaultMinerHotkey, hotkey);
    await storage.orgs.unregisterMiner("org_a", hotkey);
    assert.equal((await storage.keyUsage.count("k1", use))?.defaultMinerHotkey, null);
  },
);

adapterTest(
  "key usage store racing from two handles counts every hit exactly once",
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
  "key usage store records lastUsedAt once per window, beside the key, without changing it",
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
