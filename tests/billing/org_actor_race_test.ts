import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { type AskOrg, orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { type AccountChange, MAX_MICRO } from "../../storage/billing_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { overriding } from "../support/access.ts";
import { adapterTest } from "../support/adapters.ts";
import { ledgerSum } from "../support/ledger.ts";

const ORG = "org_race";
const CALLS = 200;
const SIZE = 10n;

/** Two service instances (two actor systems, each with its own storage handle) on one store. */
function twoInstances(first: Storage, second: Storage, clock: ManualClock): AskOrg[] {
  return [first, second].map((storage) => {
    const kind = orgActorKind({
      orgs: storage.orgs,
      billing: storage.billing,
      clock: clock.now,
      holdTtlMs: 60_000,
    });
    const system = new ActorSystem({ clock: clock.now });
    return orgAsker(system, system.register(kind));
  });
}

async function settledOutcome(call: Promise<unknown>): Promise<"ok" | "insufficient"> {
  try {
    await call;
    return "ok";
  } catch (error) {
    if (error instanceof ServiceError && error.code === "insufficient_credits") return "insufficient";
    throw error;
  }
}

adapterTest(
  "200 reserves raced over two instances succeed exactly K times",
  { needs: "concurrency" },
  async (adapter) => {
    const K = 37n;
    const clock = new ManualClock();
    const asks = twoInstances(adapter.storage, await adapter.openAnother(), clock);
    await asks[0]!(ORG, { type: "create", name: "Race" });
    await asks[1]!(ORG, { type: "credit", amountMicro: K * SIZE, reference: "initial" });
    const outcomes = await Promise.all(
      Array.from(
        { length: CALLS },
        (_, i) => settledOutcome(asks[i % 2]!(ORG, { type: "reserve", amountMicro: SIZE })),
      ),
    );
    assert.equal(outcomes.filter((outcome) => outcome === "ok").length, Number(K));
    const account = await adapter.storage.billing.getAccount(ORG);
    assert.deepEqual(account && [account.balanceMicro, account.heldMicro], [K * SIZE, K * SIZE]);
    assert.equal((await adapter.storage.billing.listHolds(ORG)).length, Number(K));
    assert.equal(await ledgerSum(adapter.storage.billing, ORG), account?.balanceMicro);
  },
);

adapterTest(
  "reserve+settle pairs raced over two instances never overspend",
  { needs: "concurrency" },
  async (adapter) => {
    const clock = new ManualClock();
    const asks = twoInstances(adapter.storage, await adapter.openAnother(), clock);
    await asks[0]!(ORG, { type: "create", name: "Race" });
    await asks[0]!(ORG, { type: "credit", amountMicro: 1_000n, reference: "initial" });
    const pair = async (ask: AskOrg, i: number) => {
      const { holdId } = await ask(ORG, { type: "reserve", amountMicro: SIZE });
      await ask(ORG, { type: "settle", holdId, costMicro: SIZE, usage: { description: `call ${i}` } });
    };
    const outcomes = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => settledOutcome(pair(asks[i % 2]!, i))),
    );
    assert.equal(outcomes.filter((outcome) => outcome === "ok").length, 100);
    assert.deepEqual(await asks[1]!(ORG, { type: "balance" }), {
      balanceMicro: 0n,
      heldMicro: 0n,
      availableMicro: 0n,
      lastUsageAt: new Date(clock.now()).toISOString(),
    });
    assert.equal(await ledgerSum(adapter.storage.billing, ORG), 0n);
    assert.equal((await adapter.storage.billing.listUsage(ORG, { limit: 200 })).length, 100);
  },
);

adapterTest(
  "settles racing releases of the same holds on another instance still charge every call",
  { needs: "concurrency" },
  async (adapter) => {
    const clock = new ManualClock();
    const [one, two] = twoInstances(adapter.storage, await adapter.openAnother(), clock) as [
      AskOrg,
      AskOrg,
    ];
    await one(ORG, { type: "create", name: "Race" });
    await one(ORG, { type: "credit", amountMicro: 10_000n, reference: "initial" });
    const holds = await Promise.all(
      Array.from({ length: 50 }, () => one(ORG, { type: "reserve", amountMicro: SIZE })),
    );
    await Promise.all(holds.flatMap(({ holdId }, i) => [
      one(ORG, { type: "settle", holdId, costMicro: 7n, usage: { description: `call ${i}` } }),
      two(ORG, { type: "release", holdId }),
    ]));
    assert.deepEqual(await two(ORG, { type: "balance" }), {
      balanceMicro: 10_000n - 50n * 7n,
      heldMicro: 0n,
      availableMicro: 10_000n - 50n * 7n,
      lastUsageAt: new Date(clock.now()).toISOString(),
    });
    assert.equal(await ledgerSum(adapter.storage.billing, ORG), 10_000n - 50n * 7n);
  },
);

adapterTest("settles of the same holds on two instances charge each hold exactly once", {
  needs: "concurrency",
}, async (adapter) => {
  const clock = new ManualClock();
  const [one, two] = twoInstances(adapter.storage, await adapter.openAnother(), clock) as [
    AskOrg,
    AskOrg,
  ];
  await one(ORG, { type: "create", name: "Race" });
  await one(ORG, { type: "credit", amountMicro: 10_000n, reference: "initial" });
  const holds = await Promise.all(
    Array.from({ length: 50 }, () => one(ORG, { type: "reserve", amountMicro: SIZE })),
  );
  const replies = await Promise.all(
    holds.flatMap(({ holdId }) =>
      [one, two].map((ask) =>
        ask(ORG, { type: "settle", holdId, costMicro: 7n, usage: { description: "race" } })
      )
    ),
  );
  assert.equal(replies.filter((reply) => !reply.alreadySettled).length, 50);
  assert.ok(replies.every((reply) => reply.chargedMicro === 7n));
  const usage = await adapter.storage.billing.listUsage(ORG, { limit: 200 });
  assert.equal(usage.length, 50);
  assert.equal(new Set(usage.map((record) => record.holdId)).size, 50);
  const account = await adapter.storage.billing.getAccount(ORG);
  assert.deepEqual(account && [account.balanceMicro, account.heldMicro], [10_000n - 50n * 7n, 0n]);
  assert.equal(await ledgerSum(adapter.storage.billing, ORG), 10_000n - 50n * 7n);
});

adapterTest(
  "credits raced near 2^63-1 over two instances stop at the maximum without a 500",
  { needs: "concurrency" },
  async (adapter) => {
    const clock = new ManualClock();
    const asks = twoInstances(adapter.storage, await adapter.openAnother(), clock);
    await asks[0]!(ORG, { type: "create", name: "Race" });
    await asks[0]!(ORG, { type: "credit", amountMicro: MAX_MICRO - 100n, reference: "initial" });
    const outcomes = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      try {
        await asks[i % 2]!(ORG, { type: "credit", amountMicro: 10n, reference: `top-up-${i}` });
        return "ok";
      } catch (error) {
        if (error instanceof ServiceError && error.code === "invalid_request") return "refused";
        throw error;
      }
    }));
    assert.equal(outcomes.filter((outcome) => outcome === "ok").length, 10);
    assert.equal((await adapter.storage.billing.getAccount(ORG))?.balanceMicro, MAX_MICRO);
    assert.equal(await ledgerSum(adapter.storage.billing, ORG), MAX_MICRO);
  },
);

adapterTest(
  "billed calls raced in batches over two instances (hold, then settle or release) keep the money exact",
  { needs: "concurrency" },
  async (adapter) => {
    const clock = new ManualClock();
    const batches: number[] = [];
    const counted = [adapter.storage, await adapter.openAnother()].map((storage) => ({
      ...storage,
      billing: overriding(storage.billing, {
        commitBatch: async (orgId: string, changes: AccountChange[]) => {
          const next = await storage.billing.commitBatch(orgId, changes);
          if (next) batches.push(changes.length);
          return next;
        },
      }),
    }));
    const asks = twoInstances(counted[0]!, counted[1]!, clock);
    await asks[0]!(ORG, { type: "create", name: "Race" });
    await asks[1]!(ORG, { type: "credit", amountMicro: 1_000n, reference: "initial" });
    const settledAfter: bigint[] = [];
    const call = async (ask: AskOrg, i: number): Promise<bigint> => {
      const { holdId } = await ask(ORG, { type: "reserve", amountMicro: SIZE });
      if (i % 3 === 0) {
        await ask(ORG, { type: "release", holdId });
        return 0n;
      }
      const cost = BigInt(i % 7) + 4n; // 4..10, within the hold
      const reply = await ask(ORG, {
        type: "settle",
        holdId,
        costMicro: cost,
        usage: { description: `call ${i}` },
      });
      settledAfter.push(reply.balanceAfterMicro);
      return cost;
    };
    const results = await Promise.allSettled(
      Array.from({ length: CALLS * 2 }, (_, i) => call(asks[i % 2]!, i)),
    );
    const refused = results.filter((r) => r.status === "rejected");
    assert.ok(
      refused.every((r) => r.reason instanceof ServiceError && r.reason.code === "insufficient_credits"),
    );
    const charged = results.reduce((sum, r) => sum + (r.status === "fulfilled" ? r.value : 0n), 0n);
    const { billing } = adapter.storage;
    const account = await billing.getAccount(ORG);
    assert.deepEqual([account?.balanceMicro, account?.heldMicro], [1_000n - charged, 0n], "charged exactly");
    assert.equal(await ledgerSum(billing, ORG), account?.balanceMicro, "balance == Σ ledger");
    assert.deepEqual(await billing.listHolds(ORG), [], "no hold left");
    assert.ok(settledAfter.every((balance) => balance >= 0n), "never negative");
    const settles = results.filter((r, i) => r.status === "fulfilled" && i % 3 !== 0).length;
    assert.equal(
      (await billing.listUsage(ORG, { limit: 500 })).length,
      settles,
      "one usage record per settle",
    );
    assert.ok(batches.some((size) => size > 1), `batches were committed: ${batches.length}`);
  },
);
