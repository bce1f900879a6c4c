import assert from "node:assert/strict";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { type AskOrg, orgActorKind, orgAsker } from "../../actors/billing/mod.ts";
import { ActorSystem, type ActorSystemOptions } from "../../actors/runtime/mod.ts";
import type { BillingStore } from "../../storage/billing_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { overriding } from "../support/access.ts";
import { adapterTest } from "../support/adapters.ts";
import { allLedgerEntries, ledgerSum } from "../support/ledger.ts";

const ORG = "org_settle";
const USAGE = { description: "echo/echo-1" };

/** An OrgActor asker on `billing` (default: the storage's own), funded with 1000 µ and holding `call-1` (100 µ). */
async function orgWithHold(
  storage: Storage,
  options: { billing?: BillingStore; system?: Partial<ActorSystemOptions> } = {},
): Promise<{ ask: AskOrg; system: ActorSystem }> {
  const clock = new ManualClock();
  const system = new ActorSystem({ clock: clock.now, retry: { firstMs: 1, maxMs: 2 }, ...options.system });
  const billing = options.billing ?? storage.billing;
  const kind = orgActorKind({ orgs: storage.orgs, billing, clock: clock.now, holdTtlMs: 60_000 });
  const ask = orgAsker(system, system.register(kind));
  await ask(ORG, { type: "create", name: "Acme" });
  await ask(ORG, { type: "credit", amountMicro: 1_000n, reference: "initial" });
  await ask(ORG, { type: "reserve", amountMicro: 100n, holdId: "call-1" });
  return { ask, system };
}

function isUnavailable(error: unknown): boolean {
  return error instanceof ServiceError && error.code === "unavailable";
}

/** The stored balance and holds, and the debits of `call-1` in the ledger. */
async function charged(storage: Storage) {
  const account = await storage.billing.getAccount(ORG);
  const debits = (await allLedgerEntries(storage.billing, ORG)).filter((entry) => entry.holdId === "call-1");
  assert.equal(
    await ledgerSum(storage.billing, ORG),
    account?.balanceMicro,
    "the ledger adds up to the balance",
  );
  return {
    balanceMicro: account?.balanceMicro,
    heldMicro: account?.heldMicro,
    debits: debits.map((entry) => entry.amountMicro),
  };
}

adapterTest("a settle whose caller gave up is still committed, a reserve is not", async ({ storage }) => {
  const { ask, system } = await orgWithHold(storage);
  const gone = AbortSignal.abort();
  await assert.rejects(
    ask(ORG, { type: "settle", holdId: "call-1", costMicro: 60n, usage: USAGE }, { signal: gone }),
    isUnavailable,
  );
  await assert.rejects(
    ask(ORG, { type: "reserve", amountMicro: 5n, holdId: "call-2" }, { signal: gone }),
    isUnavailable,
  );
  await system.drain();
  assert.deepEqual(await charged(storage), { balanceMicro: 940n, heldMicro: 0n, debits: [-60n] });
  assert.equal(await storage.billing.getHold(ORG, "call-2"), null, "the abandoned reserve never ran");
});

adapterTest("a settle is accepted by a full mailbox that refuses other messages", async ({ storage }) => {
  let gate: PromiseWithResolvers<void> | null = null;
  const billing = overriding(storage.billing, {
    getAccount: async (orgId: string) => {
      await gate?.promise;
      return await storage.billing.getAccount(orgId);
    },
  });
  const { ask } = await orgWithHold(storage, { billing, system: { maxPending: 1 } });
  gate = Promise.withResolvers();
  const busy = ask(ORG, { type: "balance" });
  await assert.rejects(ask(ORG, { type: "balance" }), isUnavailable);
  const settled = ask(ORG, { type: "settle", holdId: "call-1", costMicro: 60n, usage: USAGE });
  gate.resolve();
  assert.equal((await busy).heldMicro, 100n);
  assert.deepEqual(await settled, {
    holdId: "call-1",
    chargedMicro: 60n,
    balanceAfterMicro: 940n,
    availableAfterMicro: 940n,
    alreadySettled: false,
  });
  assert.deepEqual(await charged(storage), { balanceMicro: 940n, heldMicro: 0n, debits: [-60n] });
});

/** `storage.billing` whose next `failures` settle commits fail: before writing, or (`afterWrite`) after it. */
function flakySettles(storage: Storage, failures: number, options: { afterWrite: boolean }): BillingStore {
  const real = storage.billing;
  let left = failures;
  return overriding(real, {
    commit: async (orgId, change) => {
      const failing = change.usage !== undefined && left > 0 && left-- > 0;
      if (failing && !options.afterWrite) throw new Error("Cannot commit: connection reset");
      const next = await real.commit(orgId, change);
      if (failing) throw new Error("Cannot read the commit's answer: connection reset");
      return next;
    },
  });
}

adapterTest(
  "a settle whose storage write fails twice then succeeds is committed once",
  async ({ storage }) => {
    const billing = flakySettles(storage, 2, { afterWrite: false });
    const { ask } = await orgWithHold(storage, { billing });
    const reply = await ask(ORG, { type: "settle", holdId: "call-1", costMicro: 60n, usage: USAGE });
    assert.deepEqual(reply, {
      holdId: "call-1",
      chargedMicro: 60n,
      balanceAfterMicro: 940n,
      availableAfterMicro: 940n,
      alreadySettled: false,
    });
    assert.deepEqual(await charged(storage), { balanceMicro: 940n, heldMicro: 0n, debits: [-60n] });
  },
);

adapterTest(
  "a settle whose answer was lost after it committed is retried and charged once",
  async ({ storage }) => {
    const billing = flakySettles(storage, 1, { afterWrite: true });
    const { ask } = await orgWithHold(storage, { billing });
    const reply = await ask(ORG, { type: "settle", holdId: "call-1", costMicro: 60n, usage: USAGE });
    assert.deepEqual(reply, {
      holdId: "call-1",
      chargedMicro: 60n,
      balanceAfterMicro: 940n,
      availableAfterMicro: 940n,
      alreadySettled: true,
    });
    assert.deepEqual(await charged(storage), { balanceMicro: 940n, heldMicro: 0n, debits: [-60n] });
  },
);

adapterTest(
  "a release whose storage write fails is retried until the hold is released",
  async ({ storage }) => {
    const real = storage.billing;
    let failures = 2;
    const billing = overriding(real, {
      commit: (orgId, change) =>
        change.removeHoldId !== undefined && failures-- > 0
          ? Promise.reject(new Error("Cannot commit: connection reset"))
          : real.commit(orgId, change),
    });
    const { ask } = await orgWithHold(storage, { billing });
    assert.deepEqual(await ask(ORG, { type: "release", holdId: "call-1" }), { released: true });
    assert.deepEqual(await charged(storage), { balanceMicro: 1_000n, heldMicro: 0n, debits: [] });
  },
);

adapterTest("a settle of a hold never reserved is a final not_found, not retried", async ({ storage }) => {
  let commits = 0;
  const real = storage.billing;
  const billing = overriding(real, {
    commit: (orgId, change) => {
      if (change.usage) commits++;
      return real.commit(orgId, change);
    },
  });
  const { ask } = await orgWithHold(storage, { billing });
  await assert.rejects(
    ask(ORG, { type: "settle", holdId: "never", costMicro: 1n, usage: USAGE }),
    (error) => error instanceof ServiceError && error.code === "not_found",
  );
  assert.equal(commits, 1, "one refused conditional write, then the answer, never a retry");
});
