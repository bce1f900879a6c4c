import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { keyRecord as record } from "../support/key_records.ts";
import { auditOf } from "../support/identity.ts";

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

const WINDOW = { windowStartMs: 60_000, windowMs: 60_000 };

adapterTest(
  "api key store update keeps lastUsedAt (it cannot set it) and delete forgets it",
  async ({ storage }) => {
    await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: 0 });
    const keys = storage.apiKeys;
    await keys.create(record("k1"));
    await storage.keyUsage.count("k1", { ...WINDOW, orgId: "org_a", expectedVersion: 1, atMs: 61_500 });
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

adapterTest(
  "api key store writes a key's audit entry with it, and none when the write is lost",
  async ({ storage }) => {
    await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: 0 });
    const by = { kind: "member" as const, memberId: "mbr_1" };
    const entry = (action: "key.issued" | "key.revoked", atMs: number) => ({
      ...auditOf("org_a", action, { subject: "k1", atMs }),
      by,
    });
    assert.ok(await storage.apiKeys.create(record("k1"), entry("key.issued", 1)));
    assert.equal(await storage.apiKeys.create(record("k1"), entry("key.issued", 2)), null);
    const revoked = record("k1", { revokedAt: "2026-01-02T00:00:00.000Z" });
    assert.ok(await storage.apiKeys.update(revoked, 1, entry("key.revoked", 3)));
    assert.equal(await storage.apiKeys.update(revoked, 1, entry("key.revoked", 4)), null);
    const log = await storage.audit.list("org_a", { limit: 10 });
    assert.deepEqual(log.map((e) => [e.action, e.atMs, e.by]), [["key.revoked", 3, by], [
      "key.issued",
      1,
      by,
    ]]);
  },
);
