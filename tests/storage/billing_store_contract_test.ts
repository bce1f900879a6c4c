import assert from "node:assert/strict";
import type { Storage } from "../../storage/storage.ts";
import { type AccountChange, type Hold, MAX_MICRO, type OrgAccount } from "../../storage/billing_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { allLedgerEntries, ledgerSum } from "../support/ledger.ts";

const AT = Date.UTC(2026, 0, 1);

async function orgWithCredit(storage: Storage, orgId: string, amountMicro: bigint): Promise<OrgAccount> {
  await storage.orgs.create({ id: orgId, name: orgId, createdAtMs: AT });
  const account = await storage.billing.commit(orgId, {
    atMs: AT,
    entry: { kind: "credit", amountMicro, reference: `ref-${orgId}` },
  });
  assert.ok(account);
  return account;
}

function hold(id: string, amountMicro: bigint, expiresAtMs = AT + 60_000): Hold {
  return { id, amountMicro, createdAtMs: AT, expiresAtMs };
}

function settleChange(holdId: string, costMicro: bigint, stored = true): AccountChange {
  return {
    atMs: AT + 10,
    ...(stored ? { removeHoldId: holdId } : {}),
    entry: { kind: "debit", amountMicro: -costMicro, holdId },
    usage: {
      holdId,
      amountMicro: costMicro,
      keyId: "key1",
      minerHotkey: null,
      description: "echo/echo-1",
      metadata: { promptTokens: 3, cached: false, note: null },
    },
  };
}

adapterTest("billing store credits the balance and appends the entry in one commit", async ({ storage }) => {
  const account = await orgWithCredit(storage, "org_a", 5_000n);
  assert.deepEqual(account, { balanceMicro: 5_000n, heldMicro: 0n, lastUsageAtMs: null, version: 1 });
  assert.deepEqual(await storage.billing.getAccount("org_a"), account);
  const entry = {
    seq: 1,
    atMs: AT,
    kind: "credit",
    amountMicro: 5_000n,
    balanceAfterMicro: 5_000n,
    reference: "ref-org_a",
    holdId: null,
  };
  assert.deepEqual(await storage.billing.findCredit("org_a", "ref-org_a"), entry);
  assert.deepEqual(await storage.billing.listLedger("org_a", { limit: 10 }), [entry]);
  assert.equal(await storage.billing.findCredit("org_a", "other"), null);
});

adapterTest("billing store refuses a reused reference and an unknown org", async ({ storage }) => {
  await orgWithCredit(storage, "org_a", 5_000n);
  const credit = (reference: string): AccountChange => ({
    atMs: AT,
    entry: { kind: "credit", amountMicro: 7n, reference },
  });
  assert.equal(await storage.billing.commit("org_a", credit("ref-org_a")), null);
  assert.equal(await storage.billing.commit("org_missing", credit("x")), null);
  assert.equal((await storage.billing.getAccount("org_a"))?.balanceMicro, 5_000n);
  assert.equal((await storage.billing.commit("org_a", credit("fresh")))?.balanceMicro, 5_007n);
  assert.equal(await ledgerSum(storage.billing, "org_a"), 5_007n);
});

adapterTest(
  "billing store adds a hold only within the available amount and under an unused id",
  async ({ storage }) => {
    await orgWithCredit(storage, "org_a", 1_000n);
    assert.equal(await storage.billing.commit("org_a", { atMs: AT, addHold: hold("h1", 1_001n) }), null);
    assert.equal(
      (await storage.billing.commit("org_a", { atMs: AT, addHold: hold("h1", 600n) }))?.heldMicro,
      600n,
    );
    assert.equal(await storage.billing.commit("org_a", { atMs: AT, addHold: hold("h2", 401n) }), null);
    assert.equal(await storage.billing.commit("org_a", { atMs: AT, addHold: hold("h1", 1n) }), null);
    assert.deepEqual(await storage.billing.commit("org_a", { atMs: AT, addHold: hold("h2", 400n) }), {
      balanceMicro: 1_000n,
      heldMicro: 1_000n,
      lastUsageAtMs: null,
      version: 3,
    });
    await assert.rejects(
      storage.billing.commit("org_a", { atMs: AT, addHold: hold("h3", 1n), removeHoldId: "h1" }),
      RangeError,
    );
  },
);

adapterTest(
  "billing store holds money, then settles it as a debit with a usage record",
  async ({ storage }) => {
    await orgWithCredit(storage, "org_a", 5_000n);
    const h = hold("h1", 1_000n);
    const held = await storage.billing.commit("org_a", { atMs: AT, addHold: h });
    assert.deepEqual(held, { balanceMicro: 5_000n, heldMicro: 1_000n, lastUsageAtMs: null, version: 2 });
    assert.deepEqual(await storage.billing.getHold("org_a", "h1"), h);
    assert.deepEqual(await storage.billing.listHolds("org_a"), [h]);
    const settled = await storage.billing.commit("org_a", settleChange("h1", 1_200n));
    assert.deepEqual(settled, { balanceMicro: 3_800n, heldMicro: 0n, lastUsageAtMs: AT + 10, version: 3 });
    assert.equal(await storage.billing.getHold("org_a", "h1"), null);
    assert.deepEqual(await storage.billing.findSettlement("org_a", "h1"), {
      seq: 3,
      atMs: AT + 10,
      kind: "debit",
      amountMicro: -1_200n,
      balanceAfterMicro: 3_800n,
      reference: null,
      holdId: "h1",
    });
    assert.deepEqual(await storage.billing.listUsage("org_a", { limit: 10 }), [{
      seq: 3,
      atMs: AT + 10,
      holdId: "h1",
      amountMicro: 1_200n,
      keyId: "key1",
      minerHotkey: null,
      description: "echo/echo-1",
      metadata: { promptTokens: 3, cached: false, note: null },
    }]);
    assert.equal(await ledgerSum(storage.billing, "org_a"), 3_800n);
  },
);

adapterTest(
  "billing store refuses to remove a missing hold or to settle one hold twice",
  async ({ storage }) => {
    await orgWithCredit(storage, "org_a", 5_000n);
    assert.equal(await storage.billing.commit("org_a", settleChange("nope", 10n)), null);
    assert.equal(await storage.billing.commit("org_a", { atMs: AT, removeHoldId: "nope" }), null);
    await storage.billing.commit("org_a", { atMs: AT, addHold: hold("h1", 10n) });
    await storage.billing.commit("org_a", settleChange("h1", 10n));
    assert.equal(await storage.billing.commit("org_a", settleChange("h1", 5n, false)), null);
    assert.deepEqual(await storage.billing.getAccount("org_a"), {
      balanceMicro: 4_990n,
      heldMicro: 0n,
      lastUsageAtMs: AT + 10,
      version: 3,
    });
    assert.equal(await storage.billing.commit("org_a", settleChange("h2", 5n, false)), null);
    await storage.billing.commit("org_a", { atMs: AT, addHold: hold("h2", 10n) });
    await storage.billing.commit("org_a", { atMs: AT, removeHoldId: "h2" });
    assert.equal(
      (await storage.billing.commit("org_a", settleChange("h2", 5n, false)))?.balanceMicro,
      4_985n,
    );
    assert.equal(await ledgerSum(storage.billing, "org_a"), 4_985n);
  },
);

adapterTest(
  "billing store keeps every reserved hold id: never reused, and settleable after a release",
  async ({ storage }) => {
    await orgWithCredit(storage, "org_a", 1_000n);
    const add = (id: string) => storage.billing.commit("org_a", { atMs: AT, addHold: hold(id, 10n) });
    assert.ok(await add("settled"));
    assert.ok(await storage.billing.commit("org_a", settleChange("settled", 4n)));
    assert.equal(await add("settled"), null);
    assert.ok(await add("released"));
    assert.ok(await storage.billing.commit("org_a", { atMs: AT, removeHoldId: "released" }));
    assert.equal(await add("released"), null);
    assert.deepEqual(await storage.billing.findReservation("org_a", "released"), hold("released", 10n));
    assert.deepEqual(await storage.billing.findReservation("org_a", "settled"), hold("settled", 10n));
    assert.equal(await storage.billing.findReservation("org_a", "never"), null);
    assert.equal(await storage.billing.findReservation("org_b", "settled"), null);
    assert.deepEqual(await storage.billing.getAccount("org_a"), {
      balanceMicro: 996n,
      heldMicro: 0n,
      lastUsageAtMs: AT + 10,
      version: 5,
    });
  },
);

adapterTest("billing store refuses a credit that would take the balance over 2^63-1", async ({ storage }) => {
  await orgWithCredit(storage, "org_a", MAX_MICRO - 5n);
  const credit = (amountMicro: bigint, reference: string): AccountChange => ({
    atMs: AT,
    entry: { kind: "credit", amountMicro, reference },
  });
  assert.equal(await storage.billing.commit("org_a", credit(6n, "over")), null);
  assert.equal(await storage.billing.commit("org_a", credit(MAX_MICRO, "far-over")), null);
  assert.equal((await storage.billing.commit("org_a", credit(5n, "exact")))?.balanceMicro, MAX_MICRO);
  assert.equal(await storage.billing.commit("org_a", credit(1n, "one-more")), null);
  assert.equal(await storage.billing.findCredit("org_a", "over"), null);
  assert.equal(await ledgerSum(storage.billing, "org_a"), MAX_MICRO);
});

adapterTest("billing store lists expired holds of every org, soonest first", async ({ storage }) => {
  await orgWithCredit(storage, "org_a", 5_000n);
  await orgWithCredit(storage, "org_b", 5_000n);
  await storage.billing.commit("org_a", { atMs: AT, addHold: hold("late", 1n, AT + 300) });
  await storage.billing.commit("org_a", { atMs: AT, addHold: hold("early", 1n, AT + 100) });
  await storage.billing.commit("org_b", { atMs: AT, addHold: hold("mid", 1n, AT + 200) });
  await storage.billing.commit("org_b", { atMs: AT, addHold: hold("mid2", 1n, AT + 200) });
  assert.deepEqual(await storage.billing.listExpiredHolds(AT + 99, { limit: 10 }), []);
  const early = { orgId: "org_a", holdId: "early", expiresAtMs: AT + 100 };
  const mid = { orgId: "org_b", holdId: "mid", expiresAtMs: AT + 200 };
  assert.deepEqual(await storage.billing.listExpiredHolds(AT + 200, { limit: 10 }), [
    early,
    mid,
    { ...mid, holdId: "mid2" },
  ]);
  const ids = async (after?: typeof early) =>
    (await storage.billing.listExpiredHolds(AT + 1_000, { limit: 2, ...(after ? { after } : {}) }))
      .map((h) => h.holdId);
  assert.deepEqual(await ids(), ["early", "mid"]);
  assert.deepEqual(await ids(mid), ["mid2", "late"]);
  assert.deepEqual(await ids({ orgId: "org_a", holdId: "zzz", expiresAtMs: AT + 200 }), ["mid", "mid2"]);
  await storage.billing.commit("org_a", { atMs: AT, removeHoldId: "early" });
  assert.deepEqual(await ids(), ["mid", "mid2"]);
  assert.deepEqual(await ids(early), ["mid", "mid2"]);
});

adapterTest("billing store pages the ledger and usage newest first by seq", async ({ storage }) => {
  let account = await orgWithCredit(storage, "org_a", 1_000n);
  for (let i = 0; i < 5; i++) {
    await storage.billing.commit("org_a", { atMs: AT, addHold: hold(`h${i}`, 10n) });
    account = (await storage.billing.commit("org_a", settleChange(`h${i}`, BigInt(i))))!;
  }
  const first = await storage.billing.listLedger("org_a", { limit: 4 });
  assert.deepEqual(first.map((e) => e.seq), [11, 9, 7, 5]);
  const rest = await storage.billing.listLedger("org_a", { limit: 4, beforeSeq: 5 });
  assert.deepEqual(rest.map((e) => e.seq), [3, 1]);
  const usage = await storage.billing.listUsage("org_a", { limit: 2, beforeSeq: 9 });
  assert.deepEqual(usage.map((u) => [u.seq, u.amountMicro]), [[7, 2n], [5, 1n]]);
  assert.equal((await allLedgerEntries(storage.billing, "org_a")).length, 6);
  assert.equal(await ledgerSum(storage.billing, "org_a"), account.balanceMicro);
  assert.equal(account.balanceMicro, 990n);
});

adapterTest(
  "billing store admits exactly K of 200 holds raced from two handles",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    await orgWithCredit(adapter.storage, "org_a", 370n);
    const results = await Promise.all(
      Array.from(
        { length: 200 },
        (_, i) =>
          [adapter.storage, other][i % 2]!.billing.commit("org_a", { atMs: AT, addHold: hold(`h${i}`, 10n) }),
      ),
    );
    assert.equal(results.filter((result) => result !== null).length, 37);
    assert.deepEqual(await adapter.storage.billing.getAccount("org_a"), {
      balanceMicro: 370n,
      heldMicro: 370n,
      lastUsageAtMs: null,
      version: 38,
    });
    assert.equal((await adapter.storage.billing.listHolds("org_a")).length, 37);
  },
);

const MINER = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";
const DAY = "2026-01-01";

/** A hold counted against `MINER`'s cap of `day`, with its change. */
function capped(id: string, amountMicro: bigint, limitMicro: bigint, day = DAY): AccountChange {
  return {
    atMs: AT,
    addHold: { ...hold(id, amountMicro), cap: { minerHotkey: MINER, day } },
    capLimits: { dailyMicro: limitMicro },
  };
}

adapterTest(
  "billing store moves a miner's daily counter with its capped holds, settles and releases, and refuses a hold over the cap",
  async ({ storage }) => {
    const { billing } = storage;
    await orgWithCredit(storage, "org_a", 1_000n);
    const spent = () => billing.capSpent({ cap: "daily", minerHotkey: MINER, day: DAY });
    assert.equal(await spent(), 0n);
    assert.ok(await billing.commit("org_a", capped("h1", 100n, 250n)));
    assert.ok(await billing.commit("org_a", capped("h2", 100n, 250n)));
    assert.equal(await spent(), 200n);
    assert.equal(await billing.commit("org_a", capped("h3", 100n, 250n)), null, "over the cap");
    assert.equal((await billing.getAccount("org_a"))?.heldMicro, 200n, "nothing of the refused hold");
    assert.deepEqual((await billing.getHold("org_a", "h1"))?.cap, { minerHotkey: MINER, day: DAY });
    assert.deepEqual((await billing.findReservation("org_a", "h2"))?.cap, { minerHotkey: MINER, day: DAY });
    assert.ok(await billing.commit("org_a", settleChange("h1", 40n)));
    assert.equal(await spent(), 140n, "the settle puts the cost in place of the hold");
    assert.ok(await billing.commit("org_a", { atMs: AT, removeHoldId: "h2" }));
    assert.equal(await spent(), 40n, "the release takes the hold off");
    assert.ok(await billing.commit("org_a", capped("h3", 100n, 250n)));
    assert.ok(await billing.commit("org_a", { atMs: AT, removeHoldId: "h3" }));
    assert.ok(await billing.commit("org_a", settleChange("h3", 30n, false)));
    assert.equal(await spent(), 70n, "a late settle of a released hold adds its cost");
    assert.ok(await billing.commit("org_a", { atMs: AT, addHold: hold("plain", 500n) }));
    assert.ok(await billing.commit("org_a", settleChange("plain", 500n)));
    assert.equal(await spent(), 70n, "an uncapped hold leaves the counter alone");
    assert.ok(await billing.commit("org_a", capped("next-day", 250n, 250n, "2026-01-02")));
    assert.equal(
      await billing.capSpent({ cap: "daily", minerHotkey: MINER, day: "2026-01-02" }),
      250n,
      "each day has its own counter",
    );
    const account = await billing.getAccount("org_a");
    assert.deepEqual([account?.balanceMicro, account?.heldMicro], [1_000n - 40n - 30n - 500n, 250n]);
    assert.equal(await ledgerSum(billing, "org_a"), account?.balanceMicro);
  },
);

adapterTest(
  "billing store admits exactly K capped holds of one miner raced from two handles and two orgs",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    await orgWithCredit(adapter.storage, "org_a", 100_000n);
    await orgWithCredit(adapter.storage, "org_b", 100_000n);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        [adapter.storage, other][i % 2]!.billing.commit(
          i % 4 < 2 ? "org_a" : "org_b",
          capped(`h${i}`, 10n, 370n),
        )),
    );
    assert.equal(
      results.filter((result) => result !== null).length,
      37,
    );
    assert.equal(
      await adapter.storage.billing.capSpent({ cap: "daily", minerHotkey: MINER, day: DAY }),
      370n,
    );
    const held = [
      ...await adapter.storage.billing.listHolds("org_a"),
      ...await adapter.storage.billing.listHolds("org_b"),
    ];
    assert.equal(held.length, 37);
    const accounts = await Promise.all(
      ["org_a", "org_b"].map((id) => adapter.storage.billing.getAccount(id)),
    );
    assert.equal(accounts.reduce((sum, a) => sum + a!.heldMicro, 0n), 370n);
  },
);
