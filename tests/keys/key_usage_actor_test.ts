import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { keyUsageCounter } from "../../actors/keys/mod.ts";
import { orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import type { ApiKeyRecord } from "../../storage/api_key_store.ts";
import type { KeyUsageStore } from "../../storage/key_usage_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { overriding } from "../support/access.ts";
import { adapterTest } from "../support/adapters.ts";

const USE = { expectedVersion: 1, windowStartMs: 60_000, windowMs: 60_000, atMs: 61_000 };

function keyOf(keyId: string, orgId: string): ApiKeyRecord {
  return {
    keyId,
    orgId,
    name: keyId,
    scopes: ["billing:read"],
    rateLimitRpm: 60,
    createdAt: "2026-01-01T00:00:00.000Z",
    secretHash: "ab".repeat(32),
  };
}

/** Org `org_a` with 2.5 credits and keys k1, k2; `org_b` with none. */
async function seed(storage: Storage, system: ActorSystem): Promise<void> {
  const clock = new ManualClock();
  const askOrg = orgAsker(
    system,
    system.register(
      orgActorKind({ orgs: storage.orgs, billing: storage.billing, clock: clock.now, holdTtlMs: 60_000 }),
    ),
  );
  await askOrg("org_a", { type: "create", name: "A" });
  await askOrg("org_b", { type: "create", name: "B" });
  await askOrg("org_a", { type: "credit", amountMicro: 2_500_000n, reference: "r1" });
  await storage.apiKeys.create(keyOf("k1", "org_a"));
  await storage.apiKeys.create(keyOf("k2", "org_a"));
}

adapterTest(
  "a key's usage actor counts its uses and answers the org's balance and default miner of the same step",
  async ({ storage }) => {
    const system = new ActorSystem({ clock: Date.now });
    await seed(storage, system);
    const count = keyUsageCounter(system, storage.keyUsage);
    const first = await count("k1", { ...USE, orgId: "org_a", hits: 3 });
    assert.deepEqual(first, {
      count: 3,
      balance: { balanceMicro: 2_500_000n, heldMicro: 0n, availableMicro: 2_500_000n, lastUsageAt: null },
      defaultMinerHotkey: null,
    });
    assert.equal((await count("k1", { ...USE, orgId: "org_a" }))?.count, 4);
    assert.equal(await count("k1", { ...USE, orgId: "org_b" }), null, "another org's key");
    assert.equal(
      await count("k1", { ...USE, orgId: "org_a", expectedVersion: 2 }),
      null,
      "stale version",
    );
    assert.equal((await count("k2", { ...USE, orgId: "org_a" }))?.count, 1, "each key has its own window");
  },
);

adapterTest("keys of one org are counted in parallel, not queued behind each other", async ({ storage }) => {
  const system = new ActorSystem({ clock: Date.now });
  await seed(storage, system);
  const bothStarted = Promise.withResolvers<void>();
  const inFlight = { now: 0, max: 0 };
  const real = storage.keyUsage;
  const countUse: KeyUsageStore["count"] = async (keyId, use) => {
    inFlight.max = Math.max(inFlight.max, ++inFlight.now);
    if (inFlight.now === 2) bothStarted.resolve();
    // Queued steps would never see a second one start: give up waiting after 2 s.
    const timer = setTimeout(bothStarted.resolve, 2_000);
    await bothStarted.promise;
    clearTimeout(timer);
    inFlight.now--;
    return await real.count(keyId, use);
  };
  const count = keyUsageCounter(system, overriding(real, { count: countUse }));
  const replies = await Promise.all([
    count("k1", { ...USE, orgId: "org_a" }),
    count("k2", { ...USE, orgId: "org_a" }),
  ]);
  assert.equal(inFlight.max, 2, "the second key's step started while the first one's was running");
  assert.deepEqual(replies.map((reply) => reply?.count), [1, 1]);
});
