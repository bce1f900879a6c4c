import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { type AskOrg, orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { ledgerSum } from "../support/ledger.ts";
import { HOTKEY_A, HOTKEY_B } from "../support/access.ts";

const ORG = "org_test";
const TTL_MS = 60_000;
/** HOTKEY_A's public key encoded with SS58 network prefix 0 (Polkadot) instead of 42. */
const HOTKEY_A_PREFIX_0 = "12pWV6LvG4iAfNpFNTvvkWy3H9H8wtCkjiXupAzo2BCmPViM";
const USAGE = { description: "echo/echo-1", keyId: "key1", metadata: { promptTokens: 12 } };

/** One service instance: its own actor system over `storage`. */
function instance(storage: Storage, clock: ManualClock): { system: ActorSystem; ask: AskOrg } {
  const system = new ActorSystem({ clock: clock.now });
  const kind = orgActorKind({
    orgs: storage.orgs,
    billing: storage.billing,
    clock: clock.now,
    holdTtlMs: TTL_MS,
  });
  return { system, ask: orgAsker(system, system.register(kind)) };
}

async function fundedOrg(storage: Storage, balanceMicro: bigint) {
  const clock = new ManualClock();
  const { ask, system } = instance(storage, clock);
  await ask(ORG, { type: "create", name: "Acme" });
  if (balanceMicro > 0n) await ask(ORG, { type: "credit", amountMicro: balanceMicro, reference: "initial" });
  return { ask, system, clock };
}

async function assertLedgerMatches(storage: Storage, expectedBalance: bigint): Promise<void> {
  const account = await storage.billing.getAccount(ORG);
  assert.equal(account?.balanceMicro, expectedBalance);
  assert.equal(await ledgerSum(storage.billing, ORG), expectedBalance);
}

function isCode(code: string) {
  return (error: unknown) => error instanceof ServiceError && error.code === code;
}

adapterTest(
  "org actor credits once per reference and refuses a reused one with another amount",
  async ({ storage }) => {
    const { ask } = await fundedOrg(storage, 0n);
    const first = await ask(ORG, { type: "credit", amountMicro: 5_000n, reference: "pay-1" });
    const again = await ask(ORG, { type: "credit", amountMicro: 5_000n, reference: "pay-1" });
    assert.equal(first.duplicate, false);
    assert.equal(again.duplicate, true);
    assert.deepEqual(again.entry, first.entry);
    assert.equal(again.balance.balanceMicro, 5_000n);
    await assert.rejects(
      ask(ORG, { type: "credit", amountMicro: 6_000n, reference: "pay-1" }),
      isCode("conflict"),
    );
    await assert.rejects(
      ask(ORG, { type: "credit", amountMicro: 0n, reference: "pay-2" }),
      isCode("invalid_request"),
    );
    await assertLedgerMatches(storage, 5_000n);
  },
);

adapterTest(
  "org actor reserves within the available amount and settles lower or higher costs",
  async ({ storage }) => {
    const { ask } = await fundedOrg(storage, 1_000n);
    const small = await ask(ORG, { type: "reserve", amountMicro: 300n });
    assert.deepEqual(await ask(ORG, { type: "balance" }), {
      balanceMicro: 1_000n,
      heldMicro: 300n,
      availableMicro: 700n,
      lastUsageAt: null,
    });
    await assert.rejects(ask(ORG, { type: "reserve", amountMicro: 701n }), isCode("insufficient_credits"));
    const big = await ask(ORG, { type: "reserve", amountMicro: 700n });
    const lower = await ask(ORG, { type: "settle", holdId: small.holdId, costMicro: 120n, usage: USAGE });
    assert.deepEqual(lower, {
      holdId: small.holdId,
      chargedMicro: 120n,
      balanceAfterMicro: 880n,
      availableAfterMicro: 180n, // the 700 still held for `big`
      alreadySettled: false,
    });
    const higher = await ask(ORG, { type: "settle", holdId: big.holdId, costMicro: 800n, usage: USAGE });
    assert.equal(higher.balanceAfterMicro, 80n);
    assert.equal(higher.availableAfterMicro, 80n);
    const balance = await ask(ORG, { type: "balance" });
    assert.deepEqual(balance, {
      balanceMicro: 80n,
      heldMicro: 0n,
      availableMicro: 80n,
      lastUsageAt: "2026-01-01T00:00:00.000Z",
    });
    await assertLedgerMatches(storage, 80n);
  },
);

adapterTest("org actor charges an overage past zero but never reserves past zero", async ({ storage }) => {
  const { ask } = await fundedOrg(storage, 100n);
  const hold = await ask(ORG, { type: "reserve", amountMicro: 100n });
  const settled = await ask(ORG, { type: "settle", holdId: hold.holdId, costMicro: 250n, usage: USAGE });
  assert.equal(settled.balanceAfterMicro, -150n);
  assert.equal((await ask(ORG, { type: "balance" })).availableMicro, -150n);
  await assert.rejects(ask(ORG, { type: "reserve", amountMicro: 1n }), isCode("insufficient_credits"));
  await ask(ORG, { type: "credit", amountMicro: 151n, reference: "top-up" });
  await ask(ORG, { type: "reserve", amountMicro: 1n });
  await assertLedgerMatches(storage, 1n);
});

adapterTest(
  "org actor settles a hold once, and a late settle after expiry still charges",
  async ({ storage }) => {
    const { ask, clock } = await fundedOrg(storage, 1_000n);
    const hold = await ask(ORG, { type: "reserve", amountMicro: 100n });
    await ask(ORG, { type: "settle", holdId: hold.holdId, costMicro: 90n, usage: USAGE });
    const repeat = await ask(ORG, { type: "settle", holdId: hold.holdId, costMicro: 90n, usage: USAGE });
    assert.deepEqual(repeat, {
      holdId: hold.holdId,
      chargedMicro: 90n,
      balanceAfterMicro: 910n,
      availableAfterMicro: 910n,
      alreadySettled: true,
    });
    await assert.rejects(
      ask(ORG, { type: "settle", holdId: hold.holdId, costMicro: 95n, usage: USAGE }),
      isCode("conflict"),
    );
    const slow = await ask(ORG, { type: "reserve", amountMicro: 100n, ttlMs: 1_000 });
    clock.advance(1_001);
    assert.deepEqual(await ask(ORG, { type: "release", holdId: slow.holdId }), { released: true });
    assert.deepEqual(await ask(ORG, { type: "release", holdId: slow.holdId }), { released: false });
    const late = await ask(ORG, { type: "settle", holdId: slow.holdId, costMicro: 40n, usage: USAGE });
    assert.equal(late.balanceAfterMicro, 870n);
    assert.equal((await storage.billing.listUsage(ORG, { limit: 10 })).length, 2);
    await assertLedgerMatches(storage, 870n);
  },
);

adapterTest(
  "org actor releases a hold without charging and repeats a reserve by hold id",
  async ({ storage }) => {
    const { ask } = await fundedOrg(storage, 500n);
    const first = await ask(ORG, { type: "reserve", amountMicro: 200n, holdId: "call-1" });
    assert.deepEqual(await ask(ORG, { type: "reserve", amountMicro: 200n, holdId: "call-1" }), first);
    await assert.rejects(
      ask(ORG, { type: "reserve", amountMicro: 201n, holdId: "call-1" }),
      isCode("conflict"),
    );
    assert.equal((await ask(ORG, { type: "balance" })).heldMicro, 200n);
    await ask(ORG, { type: "release", holdId: "call-1" });
    assert.equal((await ask(ORG, { type: "balance" })).availableMicro, 500n);
    await assertLedgerMatches(storage, 500n);
  },
);

adapterTest("org actor releases expired holds itself before refusing a reserve", async ({ storage }) => {
  const { ask, clock } = await fundedOrg(storage, 500n);
  await ask(ORG, { type: "reserve", amountMicro: 400n });
  await assert.rejects(ask(ORG, { type: "reserve", amountMicro: 200n }), isCode("insufficient_credits"));
  clock.advance(TTL_MS);
  const reserved = await ask(ORG, { type: "reserve", amountMicro: 200n });
  assert.equal(reserved.expiresAt, new Date(clock.now() + TTL_MS).toISOString());
  assert.equal((await ask(ORG, { type: "balance" })).heldMicro, 200n);
});

adapterTest(
  "org actor answers not_found for an unknown org, and sees one another instance created",
  async (adapter) => {
    const clock = new ManualClock();
    const one = instance(adapter.storage, clock);
    const two = instance(adapter.storage, clock);
    await assert.rejects(one.ask(ORG, { type: "balance" }), isCode("not_found"));
    await two.ask(ORG, { type: "create", name: "Acme" });
    assert.equal((await one.ask(ORG, { type: "balance" })).balanceMicro, 0n);
    await assert.rejects(one.ask(ORG, { type: "create", name: "Again" }), isCode("conflict"));
  },
);

adapterTest("org actor registers miners to one org only and keeps a default", async ({ storage }) => {
  const { ask } = await fundedOrg(storage, 0n);
  await ask("org_other", { type: "create", name: "Other" });
  const registered = await ask(ORG, { type: "registerMiner", hotkey: HOTKEY_A, makeDefault: true });
  assert.equal(registered.outcome, "registered");
  assert.equal(registered.view.org.defaultMinerHotkey, HOTKEY_A);
  assert.equal((await ask(ORG, { type: "registerMiner", hotkey: HOTKEY_A })).outcome, "already");
  await assert.rejects(ask("org_other", { type: "registerMiner", hotkey: HOTKEY_A }), isCode("conflict"));
  await assert.rejects(
    ask(ORG, { type: "registerMiner", hotkey: "5NotAnAddress" }),
    isCode("invalid_request"),
  );
  // HOTKEY_A's public key under network prefix 0 instead of 42: not a second registration.
  await assert.rejects(
    ask("org_other", { type: "registerMiner", hotkey: HOTKEY_A_PREFIX_0 }),
    (error) => isCode("invalid_request")(error) && JSON.stringify(error).includes('{"field":"hotkey"'),
  );
  assert.deepEqual((await ask("org_other", { type: "get" })).miners, []);
  await ask(ORG, { type: "registerMiner", hotkey: HOTKEY_B });
  assert.equal(
    (await ask(ORG, { type: "setDefaultMiner", hotkey: HOTKEY_B })).view.org.defaultMinerHotkey,
    HOTKEY_B,
  );
  const removed = await ask(ORG, { type: "unregisterMiner", hotkey: HOTKEY_B });
  assert.equal(removed.view.org.defaultMinerHotkey, null);
  assert.deepEqual(removed.view.miners.map((miner) => miner.hotkey), [HOTKEY_A]);
  await assert.rejects(ask(ORG, { type: "unregisterMiner", hotkey: HOTKEY_B }), isCode("not_found"));
});
