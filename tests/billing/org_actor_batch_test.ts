/**
 * Batched commits of the OrgActor: reserves, settles and releases that wait together in its
 * mailbox are decided in order and committed together, each answered as if it ran alone.
 */
import assert from "node:assert/strict";
import { ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { type AskOrg, orgActorKind, orgAsker, type OrgReply } from "../../actors/billing/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import type { AccountChange, BillingStore } from "../../storage/billing_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { overriding } from "../support/access.ts";
import { adapterTest } from "../support/adapters.ts";
import { allLedgerEntries, ledgerSum } from "../support/ledger.ts";

const ORG = "org_batch";
const USAGE = { description: "echo/echo-1" };

/** `storage.billing` that records the size of every durable commit it makes (1 for `commit`). */
function countingCommits(storage: Storage): { billing: BillingStore; commits: number[] } {
  const real = storage.billing;
  const commits: number[] = [];
  const billing = overriding(real, {
    commit: async (orgId: string, change: AccountChange) => {
      const next = await real.commit(orgId, change);
      if (next) commits.push(1);
      return next;
    },
    commitBatch: async (orgId: string, changes: AccountChange[]) => {
      const next = await real.commitBatch(orgId, changes);
      if (next) commits.push(changes.length);
      return next;
    },
  });
  return { billing, commits };
}

async function fundedOrg(
  storage: Storage,
  billing: BillingStore,
): Promise<{ ask: AskOrg; clock: ManualClock }> {
  const clock = new ManualClock();
  const system = new ActorSystem({ clock: clock.now, retry: { firstMs: 1, maxMs: 2 } });
  const kind = orgActorKind({ orgs: storage.orgs, billing, clock: clock.now, holdTtlMs: 60_000 });
  const ask = orgAsker(system, system.register(kind));
  await ask(ORG, { type: "create", name: "Acme" });
  await ask(ORG, { type: "credit", amountMicro: 1_000n, reference: "initial" });
  for (const holdId of ["h1", "h2", "h3"]) await ask(ORG, { type: "reserve", amountMicro: 100n, holdId });
  return { ask, clock };
}

async function outcome<T>(call: Promise<T>): Promise<T | string> {
  try {
    return await call;
  } catch (error) {
    return error instanceof ServiceError ? `${error.code} ${JSON.stringify(error.details)}` : String(error);
  }
}

/** Balance == Σ ledger, the holds left, and the ledger's seqs strictly increasing. */
async function audit(storage: Storage) {
  const account = await storage.billing.getAccount(ORG);
  assert.equal(await ledgerSum(storage.billing, ORG), account?.balanceMicro, "balance == Σ ledger");
  const seqs = (await allLedgerEntries(storage.billing, ORG)).map((entry) => entry.seq).reverse();
  assert.ok(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!), `seqs increase: ${seqs}`);
  const holds = (await storage.billing.listHolds(ORG)).map((hold) => hold.id);
  return { balanceMicro: account?.balanceMicro, heldMicro: account?.heldMicro, holds };
}

adapterTest(
  "waiting reserves, settles and releases commit together; a reserve that does not fit is refused alone",
  async ({ storage }) => {
    const { billing, commits } = countingCommits(storage);
    const { ask, clock } = await fundedOrg(storage, billing);
    commits.length = 0;
    // `balance` runs first; everything behind it waits in the mailbox and is taken as one batch.
    const calls: Promise<OrgReply | string>[] = [
      outcome(ask(ORG, { type: "balance" })),
      outcome(ask(ORG, { type: "reserve", amountMicro: 300n, holdId: "a" })), // available 700 -> 400
      outcome(ask(ORG, { type: "reserve", amountMicro: 500n, holdId: "b" })), // 402: 400 available
      outcome(ask(ORG, { type: "settle", holdId: "h1", costMicro: 60n, usage: USAGE })), // -> 440
      outcome(ask(ORG, { type: "release", holdId: "h2" })), // -> 540
      outcome(ask(ORG, { type: "release", holdId: "never" })),
      outcome(ask(ORG, { type: "reserve", amountMicro: 200n, holdId: "c" })), // -> 340
      outcome(ask(ORG, { type: "settle", holdId: "h3", costMicro: 150n, usage: USAGE })), // overage -> 290
      outcome(ask(ORG, { type: "reserve", amountMicro: 290n })), // exactly what is left -> 0
    ];
    const [, a, b, s1, r2, never, c, s3, last] = await Promise.all(calls);
    const expiresAt = new Date(clock.now() + 60_000).toISOString();
    assert.deepEqual(a, { holdId: "a", amountMicro: 300n, expiresAt });
    assert.equal(b, `insufficient_credits {"requestedMicro":"500","availableMicro":"400"}`);
    assert.deepEqual(s1, {
      holdId: "h1",
      chargedMicro: 60n,
      balanceAfterMicro: 940n,
      availableAfterMicro: 440n,
      alreadySettled: false,
    });
    assert.deepEqual([r2, never], [{ released: true }, { released: false }]);
    assert.deepEqual(c, { holdId: "c", amountMicro: 200n, expiresAt });
    assert.deepEqual(s3, {
      holdId: "h3",
      chargedMicro: 150n,
      balanceAfterMicro: 790n,
      availableAfterMicro: 290n,
      alreadySettled: false,
    });
    assert.equal(typeof last === "object" && "amountMicro" in last && last.amountMicro, 290n);
    assert.deepEqual(commits, [6], "one durable commit for the six changes");
    const after = await audit(storage);
    assert.equal(after.balanceMicro, 790n);
    assert.equal(after.heldMicro, 300n + 200n + 290n);
    assert.equal(after.holds.length, 3);
    const debits = (await allLedgerEntries(storage.billing, ORG)).filter((entry) => entry.kind === "debit");
    assert.deepEqual(debits.map((entry) => [entry.holdId, entry.amountMicro]), [["h3", -150n], ["h1", -60n]]);
    const usage = await storage.billing.listUsage(ORG, { limit: 10 });
    assert.deepEqual(
      usage.map((record) => record.seq),
      debits.map((entry) => entry.seq),
      "usage beside its debit",
    );
  },
);

adapterTest(
  "a batch of repeats and late settles answers each as the single path does",
  async ({ storage }) => {
    const { billing, commits } = countingCommits(storage);
    const { ask, clock } = await fundedOrg(storage, billing);
    await ask(ORG, { type: "settle", holdId: "h1", costMicro: 40n, usage: USAGE });
    await ask(ORG, { type: "release", holdId: "h2" });
    commits.length = 0;
    const calls = [
      outcome(ask(ORG, { type: "balance" })),
      outcome(ask(ORG, { type: "settle", holdId: "h1", costMicro: 40n, usage: USAGE })), // repeat
      outcome(ask(ORG, { type: "settle", holdId: "h2", costMicro: 30n, usage: USAGE })), // late: released
      outcome(ask(ORG, { type: "reserve", amountMicro: 100n, holdId: "h3" })), // repeat of a held hold
      outcome(ask(ORG, { type: "reserve", amountMicro: 100n, holdId: "h1" })), // id of a settled hold
      outcome(ask(ORG, { type: "settle", holdId: "nope", costMicro: 1n, usage: USAGE })),
      outcome(ask(ORG, { type: "settle", holdId: "h3", costMicro: -1n, usage: USAGE })), // invalid
      outcome(ask(ORG, { type: "settle", holdId: "h3", costMicro: 100n, usage: USAGE })),
    ];
    const [, repeat, late, held, reused, unknown, invalid, h3] = await Promise.all(calls);
    assert.deepEqual(repeat, {
      holdId: "h1",
      chargedMicro: 40n,
      balanceAfterMicro: 960n,
      availableAfterMicro: 860n,
      alreadySettled: true,
    });
    assert.deepEqual(late, {
      holdId: "h2",
      chargedMicro: 30n,
      balanceAfterMicro: 930n,
      availableAfterMicro: 830n,
      alreadySettled: false,
    });
    assert.deepEqual(held, {
      holdId: "h3",
      amountMicro: 100n,
      expiresAt: new Date(clock.now() + 60_000).toISOString(),
    });
    assert.match(String(reused), /^conflict/);
    assert.match(String(unknown), /^not_found/);
    assert.match(String(invalid), /^invalid_request/);
    assert.deepEqual(h3, {
      holdId: "h3",
      chargedMicro: 100n,
      balanceAfterMicro: 830n,
      availableAfterMicro: 830n,
      alreadySettled: false,
    });
    assert.deepEqual(await audit(storage), { balanceMicro: 830n, heldMicro: 0n, holds: [] });
  },
);

adapterTest(
  "a reserve that does not fit while a hold has expired releases it and is held, as alone",
  async ({ storage }) => {
    const { billing } = countingCommits(storage);
    const { ask, clock } = await fundedOrg(storage, billing);
    clock.advance(60_000);
    const calls = [
      outcome(ask(ORG, { type: "balance" })),
      outcome(ask(ORG, { type: "reserve", amountMicro: 700n, holdId: "fits" })),
      outcome(ask(ORG, { type: "reserve", amountMicro: 250n, holdId: "after-expiry" })),
    ];
    const [, fits, afterExpiry] = await Promise.all(calls);
    assert.equal(typeof fits === "object" && "amountMicro" in fits && fits.amountMicro, 700n);
    assert.equal(
      typeof afterExpiry === "object" && "amountMicro" in afterExpiry && afterExpiry.amountMicro,
      250n,
    );
    assert.deepEqual(await audit(storage), {
      balanceMicro: 1_000n,
      heldMicro: 950n,
      holds: ["after-expiry", "fits"],
    });
  },
);
