/**
 * The purge of spend counters (docs/billing.md, "Purge of spend counters"): counters dated before
 * the step's day go, unless a hold still held names them; a lease counter is dated by the latest
 * day of a hold that named it; steps are bounded and go on from where the last one stopped.
 */
import assert from "node:assert/strict";
import type { Storage } from "../../storage/storage.ts";
import type {
  AccountChange,
  BillingStore,
  HoldCap,
  SpendCounter,
  SpendPurgePage,
} from "../../storage/billing_store.ts";
import { capCounters } from "../../storage/spend_caps.ts";
import { adapterTest } from "../support/adapters.ts";
import { ledgerSum } from "../support/ledger.ts";

const MINER = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";
const VALIDATOR = "5HBcPkCPJuNzWBstouENkvnpsyEqo1dn9Sj4Q1oihXGro6Jg";
const TODAY = "2026-01-09";
const LIMITS = { dailyMicro: 1_000_000n, validatorMicro: 1_000_000n, leaseMicro: 1_000_000n };

async function fundedOrg(storage: Storage, orgId = "org_a"): Promise<void> {
  await storage.orgs.create({ id: orgId, name: orgId, createdAtMs: 0 });
  const credit = { kind: "credit" as const, amountMicro: 10_000_000n, reference: "r" };
  assert.ok(await storage.billing.commit(orgId, { atMs: 0, entry: credit }));
}

/** The caps of a validator completion on `lease`, taken on `day`. */
function capOf(day: string, lease: string, miner = MINER): HoldCap {
  return { minerHotkey: miner, day, validatorHotkey: VALIDATOR, agentPredictionId: lease };
}

/** A hold of `amountMicro` taken at the start of `cap.day`, living `ttlMs`. */
function hold(id: string, amountMicro: bigint, cap: HoldCap, ttlMs = 60_000): AccountChange {
  const atMs = Date.parse(`${cap.day}T00:00:00Z`);
  return {
    atMs,
    addHold: { id, amountMicro, createdAtMs: atMs, expiresAtMs: atMs + ttlMs, cap },
    capLimits: LIMITS,
  };
}

/** A settle of `holdId` for `costMicro`, with the hold still held or (`stored: false`) gone. */
function settle(holdId: string, costMicro: bigint, options: { stored?: boolean } = {}): AccountChange {
  return {
    atMs: Date.parse(`${TODAY}T00:00:00Z`),
    ...(options.stored === false ? {} : { removeHoldId: holdId }),
    entry: { kind: "debit", amountMicro: -costMicro, holdId },
    usage: {
      holdId,
      amountMicro: costMicro,
      keyId: null,
      minerHotkey: MINER,
      description: "echo/echo-1",
      metadata: {},
    },
  };
}

function release(holdId: string): AccountChange {
  return { atMs: Date.parse(`${TODAY}T00:00:00Z`), removeHoldId: holdId };
}

async function commit(billing: BillingStore, change: AccountChange, orgId = "org_a"): Promise<void> {
  assert.ok(await billing.commit(orgId, change), `commit of ${change.addHold?.id ?? change.removeHoldId}`);
}

/** Each counter of `cap` (daily, validator, lease) as `capSpent` reads it. */
async function spent(billing: BillingStore, cap: HoldCap): Promise<bigint[]> {
  return await Promise.all(capCounters(cap).map((counter) => billing.capSpent(counter)));
}

/** Steps of `limit` until the purge has gone through every counter; the counters purged. */
async function purgeAll(billing: BillingStore, beforeDay: string, limit = 100): Promise<number> {
  let purged = 0;
  let after: string | undefined;
  for (let steps = 0; steps < 1_000; steps++) {
    const page: SpendPurgePage = {
      beforeDay,
      today: TODAY,
      limit,
      ...(after === undefined ? {} : { after }),
    };
    const step = await billing.purgeSpendCounters(page);
    assert.ok(step.purged <= limit, `a step purges at most its limit (${step.purged} > ${limit})`);
    purged += step.purged;
    if (step.next === null) return purged;
    after = step.next;
  }
  throw new Error("The purge never went through every counter");
}

adapterTest(
  "the purge deletes the counters dated before its day and keeps the others",
  async ({ storage }) => {
    const { billing } = storage;
    await fundedOrg(storage);
    const old = capOf("2026-01-01", "ap_old");
    const recent = capOf("2026-01-03", "ap_recent");
    await commit(billing, hold("h1", 100n, old));
    await commit(billing, settle("h1", 40n));
    await commit(billing, hold("h2", 100n, recent));
    await commit(billing, settle("h2", 30n));
    assert.equal(
      await purgeAll(billing, "2026-01-03"),
      3,
      "the old day's daily, validator and lease counters",
    );
    assert.deepEqual(await spent(billing, old), [0n, 0n, 0n]);
    assert.deepEqual(await spent(billing, recent), [30n, 30n, 30n]);
    assert.equal(await purgeAll(billing, "2026-01-03"), 0, "a re-run deletes nothing more");
    const account = await billing.getAccount("org_a");
    assert.equal(account?.balanceMicro, 10_000_000n - 70n, "the money is untouched");
    assert.equal(await ledgerSum(billing, "org_a"), account?.balanceMicro);
  },
);

adapterTest(
  "a counter that a held hold names is kept whatever its day, and the hold's settle after the purge leaves it right",
  async ({ storage }) => {
    const { billing } = storage;
    await fundedOrg(storage);
    const named = capOf("2026-01-01", "ap_named");
    const free = capOf("2026-01-01", "ap_free", "5FreeMinerHotkeyWithoutHolds");
    await commit(billing, hold("long", 100n, named, 30 * 86_400_000));
    await commit(billing, hold("done", 100n, named));
    await commit(billing, settle("done", 25n));
    await commit(billing, hold("other", 100n, free));
    await commit(billing, release("other"));
    assert.equal(await purgeAll(billing, TODAY), 3, "only the counters no held hold names");
    assert.deepEqual(await spent(billing, free), [0n, 0n, 0n]);
    assert.deepEqual(await spent(billing, named), [125n, 125n, 125n], "kept, with the held hold in them");
    await commit(billing, settle("long", 60n));
    assert.deepEqual(await spent(billing, named), [85n, 85n, 85n], "Σ charged of both holds");
    assert.equal(await purgeAll(billing, TODAY), 3, "once no held hold names them, they go");
    assert.deepEqual(await spent(billing, named), [0n, 0n, 0n]);
  },
);

adapterTest("a lease counter is dated by the latest day of a hold that named it", async ({ storage }) => {
  const { billing } = storage;
  await fundedOrg(storage);
  const lease: SpendCounter = { cap: "lease", agentPredictionId: "ap_two_days" };
  await commit(billing, hold("first", 100n, capOf("2026-01-01", "ap_two_days")));
  await commit(billing, hold("second", 100n, capOf("2026-01-02", "ap_two_days")));
  await commit(billing, settle("second", 10n));
  await commit(billing, settle("first", 20n)); // the older hold's settle, last, does not date it back
  assert.equal(await purgeAll(billing, "2026-01-02"), 2, "the first day's daily and validator counters");
  assert.equal(await billing.capSpent(lease), 30n, "the lease counter is dated 2026-01-02");
  assert.equal(await purgeAll(billing, "2026-01-03"), 3);
  assert.equal(await billing.capSpent(lease), 0n);
});

adapterTest(
  "the purge works in bounded steps, each going on from where the last one stopped",
  async ({ storage }) => {
    const { billing } = storage;
    await fundedOrg(storage);
    const caps: HoldCap[] = [];
    for (let i = 0; i < 7; i++) {
      const day = i % 2 === 0 ? "2026-01-01" : "2026-01-05";
      caps.push(capOf(day, `ap_${i}`, `5Miner${i}`));
    }
    for (const [i, cap] of caps.entries()) {
      await commit(billing, hold(`h${i}`, 100n, cap));
      await commit(billing, settle(`h${i}`, BigInt(i + 1)));
    }
    assert.equal(await purgeAll(billing, "2026-01-03", 2), 12, "four old holds' three counters each");
    for (const [i, cap] of caps.entries()) {
      const left = i % 2 === 0 ? 0n : BigInt(i + 1);
      assert.deepEqual(await spent(billing, cap), [left, left, left], `the counters of h${i}`);
    }
    await assert.rejects(
      billing.purgeSpendCounters({ beforeDay: TODAY, today: TODAY, limit: 0 }),
      RangeError,
    );
    await assert.rejects(
      billing.purgeSpendCounters({ beforeDay: TODAY, today: TODAY, limit: 5, after: "nowhere" }),
      RangeError,
    );
  },
);

adapterTest(
  "a late settle after the purge leaves only its cost on the counters, which the next purge deletes",
  async ({ storage }) => {
    const { billing } = storage;
    await fundedOrg(storage);
    const cap = capOf("2026-01-01", "ap_late");
    await commit(billing, hold("late", 100n, cap));
    await commit(billing, release("late"));
    assert.equal(await purgeAll(billing, TODAY), 3);
    await commit(billing, settle("late", 40n, { stored: false }));
    assert.deepEqual(await spent(billing, cap), [40n, 40n, 40n]);
    assert.equal(await purgeAll(billing, TODAY), 3, "dated by the hold's day, they are old at once");
    assert.equal((await billing.getAccount("org_a"))?.balanceMicro, 10_000_000n - 40n, "the call is charged");
  },
);

adapterTest(
  "a purge racing the settles and releases of holds naming old counters never deletes a counter a held hold names",
  { needs: "concurrency" },
  async ({ storage, openAnother }) => {
    const other = await openAnother();
    await fundedOrg(storage);
    const caps = Array.from({ length: 24 }, (_, i) => capOf("2026-01-01", `ap_${i}`));
    for (const [i, cap] of caps.entries()) {
      await commit(storage.billing, hold(`h${i}`, 100n, cap, 86_400_000));
    }
    let ending = true;
    const ends = (async () => {
      for (let i = 0; i < caps.length; i++) {
        await commit(storage.billing, i % 2 === 0 ? settle(`h${i}`, 1n) : release(`h${i}`));
      }
    })().finally(() => ending = false);
    let runs = 0;
    while (ending || runs === 0) {
      await purgeAll(other.billing, TODAY, 7);
      runs++;
    }
    await ends;
    const daily = await storage.billing.capSpent(capCounters(caps[0]!)[0]!);
    assert.ok(daily === 0n || daily === 12n, `the miner's day is purged or right, not ${daily}`);
    for (const [i, cap] of caps.entries()) {
      const lease = await storage.billing.capSpent(capCounters(cap)[2]!);
      assert.ok(
        lease === 0n || lease === (i % 2 === 0 ? 1n : 0n),
        `lease ${i}: purged or right, not ${lease}`,
      );
    }
    await purgeAll(other.billing, TODAY);
    assert.deepEqual(await spent(storage.billing, caps[0]!), [0n, 0n, 0n], "with every hold over, all go");
  },
);
