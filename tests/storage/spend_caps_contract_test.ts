/**
 * The spend counters of capped holds beyond the miner's day (docs/billing.md, "Spend caps of
 * validator completions"): a hold naming a validator and a lease moves their counters with the
 * daily one, in the same commit, and is refused when it passes any of them; and the usage records
 * of a lease's calls are summed by lease.
 */
import assert from "node:assert/strict";
import type { Storage } from "../../storage/storage.ts";
import type { AccountChange, Hold, SpendCounter } from "../../storage/billing_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { ledgerSum } from "../support/ledger.ts";

const AT = Date.UTC(2026, 0, 1);
const DAY = "2026-01-01";
const MINER = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";
const VALIDATOR = "5HBcPkCPJuNzWBstouENkvnpsyEqo1dn9Sj4Q1oihXGro6Jg";
const LEASE = "ap_lease_one";
const DAILY: SpendCounter = { cap: "daily", minerHotkey: MINER, day: DAY };
const BY_VALIDATOR: SpendCounter = {
  cap: "validator",
  validatorHotkey: VALIDATOR,
  minerHotkey: MINER,
  day: DAY,
};
const BY_LEASE: SpendCounter = { cap: "lease", agentPredictionId: LEASE };

async function fundedOrg(storage: Storage, orgId: string, amountMicro: bigint): Promise<void> {
  await storage.orgs.create({ id: orgId, name: orgId, createdAtMs: AT });
  assert.ok(
    await storage.billing.commit(orgId, { atMs: AT, entry: { kind: "credit", amountMicro, reference: "r" } }),
  );
}

/** A hold of `amountMicro` capped by the miner's day, `VALIDATOR`'s day on it and `lease`. */
function capped(
  id: string,
  amountMicro: bigint,
  limits: { daily?: bigint; validator?: bigint; lease?: bigint; agentPredictionId?: string } = {},
): AccountChange {
  const hold: Hold = {
    id,
    amountMicro,
    createdAtMs: AT,
    expiresAtMs: AT + 60_000,
    cap: {
      minerHotkey: MINER,
      day: DAY,
      validatorHotkey: VALIDATOR,
      agentPredictionId: limits.agentPredictionId ?? LEASE,
    },
  };
  return {
    atMs: AT,
    addHold: hold,
    capLimits: {
      dailyMicro: limits.daily ?? 10_000n,
      validatorMicro: limits.validator ?? 10_000n,
      leaseMicro: limits.lease ?? 10_000n,
    },
  };
}

function settle(
  holdId: string,
  costMicro: bigint,
  options: { stored?: boolean; lease?: string } = {},
): AccountChange {
  return {
    atMs: AT + 10,
    ...(options.stored === false ? {} : { removeHoldId: holdId }),
    entry: { kind: "debit", amountMicro: -costMicro, holdId },
    usage: {
      holdId,
      amountMicro: costMicro,
      keyId: null,
      minerHotkey: MINER,
      description: "echo/echo-1",
      metadata: { validatorHotkey: VALIDATOR, agentPredictionId: options.lease ?? LEASE },
    },
  };
}

async function counters(storage: Storage): Promise<bigint[]> {
  return await Promise.all([DAILY, BY_VALIDATOR, BY_LEASE].map((c) => storage.billing.capSpent(c)));
}

adapterTest(
  "a hold naming a validator and a lease moves their counters with the miner's day, through hold, settle, release and late settle",
  async ({ storage }) => {
    const { billing } = storage;
    await fundedOrg(storage, "org_a", 1_000n);
    assert.deepEqual(await counters(storage), [0n, 0n, 0n]);
    assert.ok(await billing.commit("org_a", capped("h1", 100n)));
    assert.ok(await billing.commit("org_a", capped("h2", 100n)));
    assert.deepEqual(await counters(storage), [200n, 200n, 200n]);
    assert.deepEqual((await billing.getHold("org_a", "h1"))?.cap, capped("h1", 1n).addHold!.cap);
    assert.deepEqual((await billing.findReservation("org_a", "h2"))?.cap, capped("h2", 1n).addHold!.cap);
    assert.ok(await billing.commit("org_a", settle("h1", 40n)));
    assert.deepEqual(
      await counters(storage),
      [140n, 140n, 140n],
      "the settle puts the cost in place of the hold",
    );
    assert.ok(await billing.commit("org_a", { atMs: AT, removeHoldId: "h2" }));
    assert.deepEqual(await counters(storage), [40n, 40n, 40n], "the release takes the hold off");
    assert.ok(await billing.commit("org_a", settle("h2", 30n, { stored: false })));
    assert.deepEqual(
      await counters(storage),
      [70n, 70n, 70n],
      "a late settle of a released hold adds its cost",
    );
    const other: SpendCounter = { cap: "lease", agentPredictionId: "ap_other" };
    assert.equal(await billing.capSpent(other), 0n, "each lease has its own counter");
    const account = await billing.getAccount("org_a");
    assert.deepEqual([account?.balanceMicro, account?.heldMicro], [1_000n - 70n, 0n]);
    assert.equal(await ledgerSum(billing, "org_a"), account?.balanceMicro);
  },
);

adapterTest(
  "a hold over the lease cap or the validator's cap is refused whole, and changes no counter",
  async ({ storage }) => {
    const { billing } = storage;
    await fundedOrg(storage, "org_a", 1_000n);
    assert.ok(await billing.commit("org_a", capped("h1", 100n, { lease: 250n, validator: 300n })));
    assert.ok(await billing.commit("org_a", capped("h2", 100n, { lease: 250n, validator: 300n })));
    assert.equal(
      await billing.commit("org_a", capped("h3", 100n, { lease: 250n })),
      null,
      "over the lease's",
    );
    assert.equal(
      await billing.commit("org_a", capped("h4", 100n, { validator: 250n, agentPredictionId: "ap_two" })),
      null,
      "over the validator's, on another lease",
    );
    assert.equal(
      await billing.commit("org_a", capped("h5", 100n, { daily: 250n, agentPredictionId: "ap_two" })),
      null,
    );
    assert.deepEqual(await counters(storage), [200n, 200n, 200n]);
    assert.equal(await billing.capSpent({ cap: "lease", agentPredictionId: "ap_two" }), 0n);
    assert.equal((await billing.getAccount("org_a"))?.heldMicro, 200n, "nothing of the refused holds");
    assert.ok(await billing.commit("org_a", capped("h6", 50n, { lease: 250n })), "what is left still fits");
    assert.deepEqual(await counters(storage), [250n, 250n, 250n]);
  },
);

adapterTest("a capped hold without the limit of one of its caps is a RangeError", async ({ storage }) => {
  await fundedOrg(storage, "org_a", 1_000n);
  const change = capped("h1", 10n);
  await assert.rejects(
    () =>
      Promise.resolve().then(() =>
        storage.billing.commit("org_a", { ...change, capLimits: { dailyMicro: 100n } })
      ),
    RangeError,
  );
  assert.deepEqual(await counters(storage), [0n, 0n, 0n]);
});

adapterTest(
  "releases and settles of capped holds committed together move every counter they name",
  async ({ storage }) => {
    const { billing } = storage;
    await fundedOrg(storage, "org_a", 1_000n);
    for (const id of ["h1", "h2", "h3"]) assert.ok(await billing.commit("org_a", capped(id, 100n)));
    const ended = await billing.commitBatch("org_a", [
      { atMs: AT, removeHoldId: "h1" },
      { atMs: AT, removeHoldId: "h2" },
      settle("h3", 25n),
    ]);
    assert.equal(ended?.length, 3);
    assert.deepEqual(await counters(storage), [25n, 25n, 25n]);
  },
);

adapterTest(
  "the usage records naming a lease are counted and summed by lease, in any org",
  async ({ storage }) => {
    const { billing } = storage;
    await fundedOrg(storage, "org_a", 1_000n);
    await fundedOrg(storage, "org_b", 1_000n);
    assert.ok(await billing.commit("org_a", capped("a1", 100n)));
    assert.ok(await billing.commit("org_a", settle("a1", 30n)));
    assert.ok(await billing.commit("org_a", capped("a2", 100n)));
    assert.ok(await billing.commit("org_a", settle("a2", 0n)));
    assert.ok(
      await billing.commit("org_b", {
        atMs: AT,
        addHold: { id: "b1", amountMicro: 50n, createdAtMs: AT, expiresAtMs: AT + 1 },
      }),
    );
    assert.ok(await billing.commit("org_b", settle("b1", 12n)));
    assert.ok(await billing.commit("org_b", capped("b2", 100n, { agentPredictionId: "ap_two" })));
    assert.ok(await billing.commit("org_b", settle("b2", 7n, { lease: "ap_two" })));
    assert.ok(await billing.commit("org_b", capped("held", 100n)), "a hold in flight is not a charged call");
    const keyed = settle("keyed", 5n);
    assert.ok(
      await billing.commit("org_b", {
        atMs: AT,
        addHold: { id: "keyed", amountMicro: 5n, createdAtMs: AT, expiresAtMs: AT + 1 },
      }),
    );
    assert.ok(await billing.commit("org_b", { ...keyed, usage: { ...keyed.usage!, metadata: {} } }));
    const usage = await billing.leaseUsage([LEASE, "ap_two", "ap_none"]);
    assert.deepEqual(Object.fromEntries(usage), {
      [LEASE]: { calls: 3, costMicro: 42n },
      ap_two: { calls: 1, costMicro: 7n },
    });
    assert.deepEqual(await billing.leaseUsage([]), new Map());
  },
);

adapterTest(
  "of capped holds raced from two handles, exactly as many as fit the lease's cap are held, and the validator's likewise",
  { needs: "concurrency" },
  async (adapter) => {
    const other = await adapter.openAnother();
    await fundedOrg(adapter.storage, "org_a", 100_000n);
    const race = (prefix: string, limits: (i: number) => Parameters<typeof capped>[2]) =>
      Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          [adapter.storage, other][i % 2]!.billing.commit("org_a", capped(`${prefix}${i}`, 10n, limits(i)))),
      );
    const byLease = await race("l", () => ({ lease: 370n }));
    assert.equal(byLease.filter((result) => result !== null).length, 37);
    assert.equal(await adapter.storage.billing.capSpent(BY_LEASE), 370n);
    // Each hold on a lease of its own: only the validator's cap (370 more) binds.
    const byValidator = await race("v", (i) => ({ validator: 740n, agentPredictionId: `ap_${i}` }));
    assert.equal(byValidator.filter((result) => result !== null).length, 37);
    assert.deepEqual(await counters(adapter.storage), [740n, 740n, 370n]);
    assert.equal((await adapter.storage.billing.getAccount("org_a"))?.heldMicro, 740n);
  },
);
