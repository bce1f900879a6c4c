import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";

const AT = Date.UTC(2026, 0, 1);
const HOTKEY_A = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";
const HOTKEY_B = "5Fpfx4iDtrrY99VGkQnLXASytC2y9Z3o8KUyTtD4w7o5SZcA";

adapterTest("org store creates an org once, with an empty account at version 0", async ({ storage }) => {
  assert.equal(await storage.orgs.create({ id: "org_a", name: "Acme", createdAtMs: AT }), true);
  assert.equal(await storage.orgs.create({ id: "org_a", name: "Other", createdAtMs: AT + 1 }), false);
  assert.deepEqual(await storage.orgs.get("org_a"), {
    id: "org_a",
    name: "Acme",
    createdAtMs: AT,
    defaultMinerHotkey: null,
  });
  assert.deepEqual(await storage.billing.getAccount("org_a"), {
    balanceMicro: 0n,
    heldMicro: 0n,
    lastUsageAtMs: null,
    version: 0,
  });
  assert.equal(await storage.orgs.get("org_missing"), null);
  assert.equal(await storage.billing.getAccount("org_missing"), null);
});

adapterTest("org store lets a hotkey belong to one org only", async ({ storage }) => {
  await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: AT });
  await storage.orgs.create({ id: "org_b", name: "B", createdAtMs: AT });
  const options = { atMs: AT, makeDefault: false };
  assert.equal(await storage.orgs.registerMiner("org_a", HOTKEY_B, options), "registered");
  assert.equal(await storage.orgs.registerMiner("org_a", HOTKEY_A, options), "registered");
  assert.equal(
    await storage.orgs.registerMiner("org_a", HOTKEY_A, { atMs: AT + 5, makeDefault: false }),
    "already",
  );
  assert.equal(await storage.orgs.registerMiner("org_b", HOTKEY_A, options), "taken");
  assert.deepEqual(await storage.orgs.minerRegistration(HOTKEY_A), {
    hotkey: HOTKEY_A,
    orgId: "org_a",
    registeredAtMs: AT,
    linkedWithProof: false,
    boundMemberId: null,
  });
  assert.deepEqual((await storage.orgs.listMiners("org_a")).map((miner) => miner.hotkey), [
    HOTKEY_A,
    HOTKEY_B,
  ]);
  assert.deepEqual(await storage.orgs.listMiners("org_b"), []);
  assert.equal(await storage.orgs.unregisterMiner("org_b", HOTKEY_A), false);
  assert.equal(await storage.orgs.unregisterMiner("org_a", HOTKEY_A), true);
  assert.equal(await storage.orgs.minerRegistration(HOTKEY_A), null);
  assert.equal(await storage.orgs.registerMiner("org_b", HOTKEY_A, options), "registered");
});

adapterTest("org store keeps the default miner one of the org's own miners", async ({ storage }) => {
  await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: AT });
  await storage.orgs.create({ id: "org_b", name: "B", createdAtMs: AT });
  await storage.orgs.registerMiner("org_a", HOTKEY_A, { atMs: AT, makeDefault: true });
  assert.equal((await storage.orgs.get("org_a"))?.defaultMinerHotkey, HOTKEY_A);
  await storage.orgs.registerMiner("org_a", HOTKEY_B, { atMs: AT, makeDefault: false });
  assert.equal((await storage.orgs.get("org_a"))?.defaultMinerHotkey, HOTKEY_A);
  assert.equal(await storage.orgs.setDefaultMiner("org_a", HOTKEY_B), true);
  assert.equal((await storage.orgs.get("org_a"))?.defaultMinerHotkey, HOTKEY_B);
  assert.equal(await storage.orgs.setDefaultMiner("org_b", HOTKEY_A), false);
  assert.equal(
    await storage.orgs.registerMiner("org_a", HOTKEY_A, { atMs: AT, makeDefault: true }),
    "already",
  );
  assert.equal((await storage.orgs.get("org_a"))?.defaultMinerHotkey, HOTKEY_A);
  await storage.orgs.unregisterMiner("org_a", HOTKEY_A);
  assert.equal((await storage.orgs.get("org_a"))?.defaultMinerHotkey, null);
  assert.equal((await storage.orgs.get("org_b"))?.defaultMinerHotkey, null);
});

adapterTest(
  "org store gives a hotkey raced by two instances to exactly one org",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    await adapter.storage.orgs.create({ id: "org_a", name: "A", createdAtMs: AT });
    await adapter.storage.orgs.create({ id: "org_b", name: "B", createdAtMs: AT });
    const outcomes = await Promise.all([
      adapter.storage.orgs.registerMiner("org_a", HOTKEY_A, { atMs: AT, makeDefault: true }),
      other.orgs.registerMiner("org_b", HOTKEY_A, { atMs: AT, makeDefault: true }),
    ]);
    assert.deepEqual(outcomes.toSorted(), ["registered", "taken"]);
    const owner = (await adapter.storage.orgs.minerRegistration(HOTKEY_A))?.orgId;
    const loser = owner === "org_a" ? "org_b" : "org_a";
    assert.equal((await adapter.storage.orgs.get(owner!))?.defaultMinerHotkey, HOTKEY_A);
    assert.equal((await adapter.storage.orgs.get(loser))?.defaultMinerHotkey, null);
  },
);

adapterTest(
  "org store keeps an org's low-balance threshold until it is changed or cleared",
  async ({ storage }) => {
    await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: AT });
    await storage.orgs.create({ id: "org_b", name: "B", createdAtMs: AT });
    assert.equal(await storage.orgs.lowBalance("org_a"), null);
    assert.equal(await storage.orgs.setLowBalance("org_a", 5_000_000n), true);
    assert.equal(await storage.orgs.setLowBalance("org_b", 0n), true);
    assert.equal(await storage.orgs.lowBalance("org_a"), 5_000_000n);
    assert.equal(await storage.orgs.setLowBalance("org_a", 2n ** 63n - 1n), true);
    assert.equal(await storage.orgs.lowBalance("org_a"), 2n ** 63n - 1n);
    assert.equal(await storage.orgs.lowBalance("org_b"), 0n);
    assert.equal(await storage.orgs.setLowBalance("org_a", null), true);
    assert.equal(await storage.orgs.lowBalance("org_a"), null);
    assert.equal(await storage.orgs.setLowBalance("org_missing", 1n), false);
    assert.equal(await storage.orgs.lowBalance("org_missing"), null);
    assert.equal((await storage.orgs.get("org_b"))?.name, "B", "the org record is unchanged");
  },
);

adapterTest("org store writes a low-balance change's audit entry with it", async ({ storage }) => {
  await storage.orgs.create({ id: "org_a", name: "A", createdAtMs: AT });
  const entry = (id: string, threshold: string | null) => ({
    id,
    orgId: "org_a",
    atMs: AT + Number(id),
    by: { kind: "member" as const, memberId: "mbr_owner" },
    action: "low_balance.set" as const,
    subject: "org_a",
    details: { thresholdMicro: threshold },
  });
  assert.equal(await storage.orgs.setLowBalance("org_a", 7n, { audit: entry("1", "7") }), true);
  assert.equal(await storage.orgs.setLowBalance("org_a", null, { audit: entry("2", null) }), true);
  assert.equal(
    await storage.orgs.setLowBalance("org_missing", 1n, {
      audit: { ...entry("3", "1"), orgId: "org_missing" },
    }),
    false,
  );
  assert.equal(await storage.orgs.lowBalance("org_a"), null);
  const log = await storage.audit.list("org_a", { limit: 10 });
  assert.deepEqual(log.map((each) => [each.id, each.details.thresholdMicro]), [["2", null], ["1", "7"]]);
  assert.deepEqual(await storage.audit.list("org_missing", { limit: 10 }), []);
});
