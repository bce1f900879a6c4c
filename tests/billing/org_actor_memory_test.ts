/**
 * The OrgActor's memory of its account (actors/billing/_org_memory.ts): a batch whose every
 * message commits a change is decided on it without reading storage; a memory another instance
 * made stale costs a refused commit and a read, never money; a failed commit forgets it.
 */
import assert from "node:assert/strict";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { type AskOrg, orgActorKind, orgAsker, type OrgReply } from "../../actors/billing/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import type { AccountChange, BillingStore } from "../../storage/billing_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { overriding } from "../support/access.ts";
import { adapterTest } from "../support/adapters.ts";
import { ledgerSum } from "../support/ledger.ts";

const ORG = "org_memory";
const USAGE = { description: "echo/echo-1" };

/** What the actor asked of storage: account and hold reads, and each commit's size. */
interface Traffic {
  reads: number;
  commits: number[];
  /** Commit batches to fail (a storage error) before one goes through. */
  failBatches: number;
}

function watched(storage: Storage): { billing: BillingStore; traffic: Traffic } {
  const real = storage.billing;
  const traffic: Traffic = { reads: 0, commits: [], failBatches: 0 };
  const billing = overriding(real, {
    getAccount: (orgId: string) => (traffic.reads++, real.getAccount(orgId)),
    getHolds: (orgId: string, ids: string[]) => (traffic.reads++, real.getHolds(orgId, ids)),
    commit: async (orgId: string, change: AccountChange) => {
      const next = await real.commit(orgId, change);
      if (next) traffic.commits.push(1);
      return next;
    },
    commitBatch: async (orgId: string, changes: AccountChange[]) => {
      if (traffic.failBatches > 0) {
        traffic.failBatches--;
        throw new Error("storage failed");
      }
      const next = await real.commitBatch(orgId, changes);
      if (next) traffic.commits.push(changes.length);
      return next;
    },
  });
  return { billing, traffic };
}

/** An org with 1,000 credited and holds h1, h2, h3 of 100 each, asked through its own actor system. */
async function fundedOrg(storage: Storage, billing: BillingStore): Promise<AskOrg> {
  const clock = new ManualClock();
  const system = new ActorSystem({ clock: clock.now, retry: { firstMs: 1, maxMs: 2 } });
  const kind = orgActorKind({ orgs: storage.orgs, billing, clock: clock.now, holdTtlMs: 60_000 });
  const ask = orgAsker(system, system.register(kind));
  if (!(await storage.orgs.get(ORG))) await ask(ORG, { type: "create", name: "Acme" });
  await ask(ORG, { type: "credit", amountMicro: 1_000n, reference: "initial" });
  for (const holdId of ["h1", "h2", "h3"]) await ask(ORG, { type: "reserve", amountMicro: 100n, holdId });
  return ask;
}

async function outcome<T>(call: Promise<T>): Promise<T | string> {
  try {
    return await call;
  } catch (error) {
    return error instanceof ServiceError ? `${error.code}` : String(error);
  }
}

/** Balance == Σ ledger and held == Σ holds; the account and hold ids. */
async function audit(storage: Storage) {
  const account = await storage.billing.getAccount(ORG);
  const holds = await storage.billing.listHolds(ORG);
  assert.equal(await ledgerSum(storage.billing, ORG), account?.balanceMicro, "balance == Σ ledger");
  assert.equal(holds.reduce((sum, h) => sum + h.amountMicro, 0n), account?.heldMicro, "held == Σ holds");
  return {
    balanceMicro: account?.balanceMicro,
    heldMicro: account?.heldMicro,
    holds: holds.map((h) => h.id),
  };
}

/** `balance` first (it runs alone), then `messages`, which wait behind it and go as one batch. */
function batch(ask: AskOrg, messages: Parameters<AskOrg>[1][]): Promise<(OrgReply | string)[]> {
  return Promise.all([outcome(ask(ORG, { type: "balance" })), ...messages.map((m) => outcome(ask(ORG, m)))])
    .then((all) => all.slice(1));
}

adapterTest(
  "a batch whose every message commits is decided on memory: no read, one commit",
  async ({ storage }) => {
    const { billing, traffic } = watched(storage);
    const ask = await fundedOrg(storage, billing);
    traffic.reads = 0;
    traffic.commits.length = 0;
    const [a, s1, r2, c] = await batch(ask, [
      { type: "reserve", amountMicro: 300n, holdId: "a" },
      { type: "settle", holdId: "h1", costMicro: 60n, usage: USAGE },
      { type: "release", holdId: "h2" },
      { type: "reserve", amountMicro: 400n, holdId: "c" },
    ]);
    assert.equal(typeof a === "object" && "holdId" in a && a.holdId, "a");
    assert.deepEqual(s1, {
      holdId: "h1",
      chargedMicro: 60n,
      balanceAfterMicro: 940n,
      availableAfterMicro: 440n,
      alreadySettled: false,
    });
    assert.deepEqual(r2, { released: true });
    assert.equal(typeof c === "object" && "holdId" in c && c.holdId, "c");
    assert.equal(traffic.reads, 1, "only the balance read storage");
    assert.deepEqual(traffic.commits, [4]);
    assert.deepEqual(await audit(storage), { balanceMicro: 940n, heldMicro: 800n, holds: ["a", "c", "h3"] });
  },
);

adapterTest(
  "a memory made stale by another instance: the refused commit is read again and answered as alone",
  async (adapter) => {
    const { billing, traffic } = watched(adapter.storage);
    const ask = await fundedOrg(adapter.storage, billing);
    // Another instance releases h2 and credits 500: this actor still remembers h2 held, 1,000.
    const other = await fundedOrgElsewhere(await adapter.openAnother());
    await other(ORG, { type: "release", holdId: "h2" });
    await other(ORG, { type: "credit", amountMicro: 500n, reference: "more" });
    traffic.reads = 0;
    traffic.commits.length = 0;
    const [late, x] = await batch(ask, [
      { type: "settle", holdId: "h2", costMicro: 50n, usage: USAGE }, // its hold is gone: a late settle
      { type: "reserve", amountMicro: 600n, holdId: "x" }, // fits the memory too (750 available there)
    ]);
    assert.deepEqual(late, {
      holdId: "h2",
      chargedMicro: 50n,
      balanceAfterMicro: 1_450n,
      availableAfterMicro: 1_250n,
      alreadySettled: false,
    });
    assert.equal(typeof x === "object" && "holdId" in x && x.holdId, "x");
    assert.ok(traffic.reads > 1, "storage was read after the refusal");
    assert.deepEqual(traffic.commits, [1, 1], "the late settle, then the reserve: each alone");
    assert.deepEqual(await audit(adapter.storage), {
      balanceMicro: 1_450n,
      heldMicro: 800n,
      holds: ["h1", "h3", "x"],
    });
  },
);

/** An actor system of a second instance on `storage`, asking the same org (already funded). */
function fundedOrgElsewhere(storage: Storage): AskOrg {
  const clock = new ManualClock();
  const system = new ActorSystem({ clock: clock.now, retry: { firstMs: 1, maxMs: 2 } });
  const kind = orgActorKind({
    orgs: storage.orgs,
    billing: storage.billing,
    clock: clock.now,
    holdTtlMs: 60_000,
  });
  return orgAsker(system, system.register(kind));
}

adapterTest(
  "a batch commit that fails: its reserve fails, its settle and release complete, the memory is forgotten",
  async ({ storage }) => {
    const { billing, traffic } = watched(storage);
    const ask = await fundedOrg(storage, billing);
    traffic.failBatches = 1;
    traffic.reads = 0;
    const [a, s1, r2] = await batch(ask, [
      { type: "reserve", amountMicro: 300n, holdId: "a" },
      { type: "settle", holdId: "h1", costMicro: 60n, usage: USAGE },
      { type: "release", holdId: "h2" },
    ]);
    assert.equal(a, "Error: storage failed", "the reserve's caller gets the failure");
    assert.deepEqual(r2, { released: true });
    assert.equal(typeof s1 === "object" && "chargedMicro" in s1 && s1.chargedMicro, 60n);
    assert.ok(traffic.reads > 1, "the retried settle and release read storage: nothing remembered");
    assert.deepEqual(await audit(storage), { balanceMicro: 940n, heldMicro: 100n, holds: ["h3"] });
    const again = await ask(ORG, { type: "reserve", amountMicro: 300n, holdId: "a" });
    assert.equal(again.holdId, "a", "the failed reserve's id was never used");
  },
);
