import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { type AskOrg, orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { MAX_MICRO } from "../../storage/billing_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { ledgerSum } from "../support/ledger.ts";

const ORG = "org_holds";
const USAGE = { description: "echo/echo-1" };

async function fundedOrg(
  storage: Storage,
  balanceMicro: bigint,
): Promise<{ ask: AskOrg; clock: ManualClock }> {
  const clock = new ManualClock();
  const kind = orgActorKind({
    orgs: storage.orgs,
    billing: storage.billing,
    clock: clock.now,
    holdTtlMs: 60_000,
  });
  const system = new ActorSystem({ clock: clock.now });
  const ask = orgAsker(system, system.register(kind));
  await ask(ORG, { type: "create", name: "Acme" });
  await ask(ORG, { type: "credit", amountMicro: balanceMicro, reference: "initial" });
  return { ask, clock };
}

function isCode(code: string) {
  return (error: unknown) => error instanceof ServiceError && error.code === code;
}

async function assertSettledState(storage: Storage, expected: { balanceMicro: bigint; heldMicro: bigint }) {
  const account = await storage.billing.getAccount(ORG);
  assert.deepEqual(account && { balanceMicro: account.balanceMicro, heldMicro: account.heldMicro }, expected);
  assert.equal(await ledgerSum(storage.billing, ORG), expected.balanceMicro);
}

adapterTest(
  "org actor refuses to reuse the hold id of a settled hold, leaving nothing held",
  async ({ storage }) => {
    const { ask } = await fundedOrg(storage, 1_000n);
    await ask(ORG, { type: "reserve", amountMicro: 100n, holdId: "call-1" });
    await ask(ORG, { type: "settle", holdId: "call-1", costMicro: 60n, usage: USAGE });
    await assert.rejects(
      ask(ORG, { type: "reserve", amountMicro: 100n, holdId: "call-1" }),
      isCode("conflict"),
    );
    await assert.rejects(
      ask(ORG, { type: "reserve", amountMicro: 7n, holdId: "call-1" }),
      isCode("conflict"),
    );
    await assertSettledState(storage, { balanceMicro: 940n, heldMicro: 0n });
  },
);

adapterTest("org actor refuses to reuse the hold id of a released or expired hold", async ({ storage }) => {
  const { ask, clock } = await fundedOrg(storage, 1_000n);
  await ask(ORG, { type: "reserve", amountMicro: 100n, holdId: "released" });
  await ask(ORG, { type: "release", holdId: "released" });
  await assert.rejects(
    ask(ORG, { type: "reserve", amountMicro: 100n, holdId: "released" }),
    isCode("conflict"),
  );
  await ask(ORG, { type: "reserve", amountMicro: 900n, holdId: "expired", ttlMs: 1_000 });
  clock.advance(1_000);
  await ask(ORG, { type: "reserve", amountMicro: 500n }); // releases "expired" to make room
  await assert.rejects(
    ask(ORG, { type: "reserve", amountMicro: 900n, holdId: "expired" }),
    isCode("conflict"),
  );
  await assertSettledState(storage, { balanceMicro: 1_000n, heldMicro: 500n });
});

adapterTest(
  "org actor answers not_found when settling a hold that was never reserved",
  async ({ storage }) => {
    const { ask } = await fundedOrg(storage, 1_000n);
    await assert.rejects(
      ask(ORG, { type: "settle", holdId: "never-reserved", costMicro: 400n, usage: USAGE }),
      isCode("not_found"),
    );
    assert.deepEqual(await storage.billing.listUsage(ORG, { limit: 10 }), []);
    await assertSettledState(storage, { balanceMicro: 1_000n, heldMicro: 0n });
  },
);

adapterTest(
  "org actor settles a released hold late, once, and refuses a repeat with another cost",
  async ({ storage }) => {
    const { ask } = await fundedOrg(storage, 1_000n);
    const { holdId } = await ask(ORG, { type: "reserve", amountMicro: 100n });
    assert.deepEqual(await ask(ORG, { type: "release", holdId }), { released: true });
    const late = await ask(ORG, { type: "settle", holdId, costMicro: 30n, usage: USAGE });
    assert.deepEqual(late, {
      holdId,
      chargedMicro: 30n,
      balanceAfterMicro: 970n,
      availableAfterMicro: 970n,
      alreadySettled: false,
    });
    const repeat = await ask(ORG, { type: "settle", holdId, costMicro: 30n, usage: USAGE });
    assert.deepEqual(repeat, { ...late, alreadySettled: true });
    await assert.rejects(
      ask(ORG, { type: "settle", holdId, costMicro: 31n, usage: USAGE }),
      isCode("conflict"),
    );
    await assertSettledState(storage, { balanceMicro: 970n, heldMicro: 0n });
  },
);

adapterTest("org actor credits up to 2^63-1 exactly and refuses one micro-unit more", async ({ storage }) => {
  const { ask } = await fundedOrg(storage, MAX_MICRO - 10n);
  const full = await ask(ORG, { type: "credit", amountMicro: 10n, reference: "to-the-top" });
  assert.equal(full.balance.balanceMicro, MAX_MICRO);
  await assert.rejects(
    ask(ORG, { type: "credit", amountMicro: 1n, reference: "one-more" }),
    (error) => isCode("invalid_request")(error) && /over 2\^63-1/.test(JSON.stringify(error)),
  );
  await assertSettledState(storage, { balanceMicro: MAX_MICRO, heldMicro: 0n });
});
