import assert from "node:assert/strict";
import { DAY_MS, HOUR_MS, ManualClock } from "../../actors/kernel/mod.ts";
import {
  type AskOrg,
  orgActorKind,
  orgAsker,
  SPEND_COUNTER_PURGE_JOB,
  spendCounterPurgeJob,
  type SpendCounterTimes,
  spendPurgeBeforeDay,
  spendPurgeDelayMs,
} from "../../actors/billing/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import { type SpendCounter, utcDay } from "../../storage/billing_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { runJobOnce } from "../support/jobs.ts";
import { openTestService } from "../support/test_service.ts";

const DEFAULTS: SpendCounterTimes = { holdTtlMs: 600_000, leaseMs: 600_000, leaseGraceMs: 60_000 };
const MINER = "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";
const VALIDATOR = "5HBcPkCPJuNzWBstouENkvnpsyEqo1dn9Sj4Q1oihXGro6Jg";
/** The last minute of 2026-01-01, the day the holds of these tests count against. */
const LATE_ON_DAY = Date.UTC(2026, 0, 1, 23, 59);
const DAY = "2026-01-01";

Deno.test("a counter's day is purged a day and an hour after it ends, or after the longest a hold can still move it", () => {
  assert.equal(spendPurgeDelayMs(DEFAULTS), DAY_MS + HOUR_MS);
  const longHolds = { ...DEFAULTS, holdTtlMs: 2 * DAY_MS };
  assert.equal(spendPurgeDelayMs(longHolds), 2 * DAY_MS + 660_000 + HOUR_MS);
  assert.equal(spendPurgeBeforeDay(Date.UTC(2026, 0, 3, 0, 59), DEFAULTS), "2026-01-01");
  assert.equal(spendPurgeBeforeDay(Date.UTC(2026, 0, 3, 1, 0), DEFAULTS), "2026-01-02");
  assert.equal(spendPurgeBeforeDay(Date.UTC(2026, 0, 4, 1, 0), longHolds), "2026-01-01");
  for (let nowMs = Date.UTC(2026, 0, 3); nowMs < Date.UTC(2026, 0, 4); nowMs += 10 * 60_000) {
    const yesterday = utcDay(nowMs - DAY_MS);
    assert.ok(spendPurgeBeforeDay(nowMs, DEFAULTS) <= yesterday, "only days two or more behind are purged");
  }
});

/** One service instance's OrgActor asker over `storage`, on `clock`. */
function asker(storage: Storage, clock: ManualClock): AskOrg {
  const kind = orgActorKind({
    orgs: storage.orgs,
    billing: storage.billing,
    clock: clock.now,
    holdTtlMs: 600_000,
  });
  const system = new ActorSystem({ clock: clock.now });
  return orgAsker(system, system.register(kind));
}

/** The caps of a validator completion on `lease`. */
function capsOn(lease: string) {
  return {
    minerHotkey: MINER,
    limitMicro: 1_000_000n,
    validator: { hotkey: VALIDATOR, limitMicro: 1_000_000n },
    lease: { agentPredictionId: lease, limitMicro: 1_000_000n },
  };
}

function countersOf(lease: string): SpendCounter[] {
  return [
    { cap: "daily", minerHotkey: MINER, day: DAY },
    { cap: "validator", validatorHotkey: VALIDATOR, minerHotkey: MINER, day: DAY },
    { cap: "lease", agentPredictionId: lease },
  ];
}

async function spent(storage: Storage, lease: string): Promise<bigint[]> {
  return await Promise.all(countersOf(lease).map((counter) => storage.billing.capSpent(counter)));
}

adapterTest(
  "the job purges a day's counters once the day is two days behind, and not the counters of a held hold",
  async ({ storage }) => {
    const clock = new ManualClock(LATE_ON_DAY);
    const ask = asker(storage, clock);
    await ask("org_a", { type: "create", name: "A" });
    await ask("org_a", { type: "credit", amountMicro: 10_000_000n, reference: "r" });
    const done = await ask("org_a", { type: "reserve", amountMicro: 100n, cap: capsOn("ap_done") });
    await ask("org_a", { type: "settle", holdId: done.holdId, costMicro: 30n, usage: { description: "d" } });
    const held = await ask("org_a", {
      type: "reserve",
      amountMicro: 100n,
      ttlMs: 5 * DAY_MS,
      cap: capsOn("ap_held"),
    });
    const job = spendCounterPurgeJob({ billing: storage.billing, ...DEFAULTS });
    const runAt = (ms: number) => runJobOnce(job, { leases: storage.jobLeases, nowMs: ms });

    await runAt(Date.UTC(2026, 0, 3, 0, 59));
    assert.deepEqual(await spent(storage, "ap_done"), [130n, 130n, 30n], "kept until 01:00 two days on");
    await runAt(Date.UTC(2026, 0, 3, 1, 0));
    assert.deepEqual(await spent(storage, "ap_done"), [130n, 130n, 0n], "the lease is over, the day held");
    assert.deepEqual(await spent(storage, "ap_held"), [130n, 130n, 100n]);

    clock.set(Date.UTC(2026, 0, 4, 12));
    await ask("org_a", { type: "settle", holdId: held.holdId, costMicro: 70n, usage: { description: "d" } });
    assert.deepEqual(
      await spent(storage, "ap_held"),
      [100n, 100n, 70n],
      "the settle after the purge is counted",
    );
    await runAt(Date.UTC(2026, 0, 4, 12));
    assert.deepEqual(
      await spent(storage, "ap_held"),
      [0n, 0n, 0n],
      "with the hold over, the next run purges",
    );
  },
);

adapterTest(
  "each run makes at most its steps, and the next run goes on from where it stopped",
  async ({ storage }) => {
    const clock = new ManualClock(LATE_ON_DAY);
    const ask = asker(storage, clock);
    await ask("org_a", { type: "create", name: "A" });
    await ask("org_a", { type: "credit", amountMicro: 1_000n, reference: "r" });
    const hold = await ask("org_a", { type: "reserve", amountMicro: 100n, cap: capsOn("ap_one") });
    await ask("org_a", { type: "settle", holdId: hold.holdId, costMicro: 10n, usage: { description: "d" } });
    const job = spendCounterPurgeJob({ billing: storage.billing, ...DEFAULTS, pageSize: 1, maxPages: 1 });
    const nowMs = Date.UTC(2026, 0, 9);
    const stopped = new AbortController();
    stopped.abort();
    await job.run(nowMs, { signal: stopped.signal, fence: { job: SPEND_COUNTER_PURGE_JOB, token: 1 } });
    assert.deepEqual(
      await spent(storage, "ap_one"),
      [10n, 10n, 10n],
      "a run whose signal aborted does nothing",
    );
    const left: bigint[][] = [];
    for (let run = 0; run < 3; run++) {
      await runJobOnce(job, { leases: storage.jobLeases, nowMs });
      left.push(await spent(storage, "ap_one"));
    }
    assert.deepEqual(left, [[0n, 10n, 10n], [0n, 0n, 10n], [0n, 0n, 0n]], "one counter per run");
  },
);

const OFFLINE = {
  FGW_MARKET_SOURCE: "snapshot",
  FGW_METAGRAPH_SOURCE: "file",
  FGW_METAGRAPH_FILE: new URL("../../actors/validators/demo_metagraph.json", import.meta.url).pathname,
  FGW_PRICES_SOURCE: "file",
  FGW_PRICES_FILE: new URL("../../actors/prices/demo_prices.json", import.meta.url).pathname,
};

Deno.test("the service runs the purge of spend counters under its scheduler, hourly", async () => {
  await using service = await openTestService({ env: OFFLINE });
  const { billing, orgs } = service.storage;
  const day = utcDay(service.clock.now() - 3 * DAY_MS);
  const atMs = Date.parse(`${day}T12:00:00Z`);
  await orgs.create({ id: "org_a", name: "A", createdAtMs: atMs });
  assert.ok(
    await billing.commit("org_a", { atMs, entry: { kind: "credit", amountMicro: 1_000n, reference: "r" } }),
  );
  const cap = { minerHotkey: MINER, day };
  const addHold = { id: "h1", amountMicro: 100n, createdAtMs: atMs, expiresAtMs: atMs + 10 * DAY_MS, cap };
  assert.ok(await billing.commit("org_a", { atMs, addHold, capLimits: { dailyMicro: 1_000n } }));
  const daily: SpendCounter = { cap: "daily", minerHotkey: MINER, day };
  assert.ok((await service.scheduler.tick()).includes(SPEND_COUNTER_PURGE_JOB));
  assert.equal(await billing.capSpent(daily), 100n, "the hold is held: its counter stays");
  const usage = {
    holdId: "h1",
    amountMicro: 40n,
    keyId: null,
    minerHotkey: MINER,
    description: "d",
    metadata: {},
  };
  const entry = { kind: "debit" as const, amountMicro: -40n, holdId: "h1" };
  assert.ok(await billing.commit("org_a", { atMs, removeHoldId: "h1", entry, usage }));
  assert.equal(await billing.capSpent(daily), 40n);
  service.clock.advance(HOUR_MS - 1);
  assert.ok(!(await service.scheduler.tick()).includes(SPEND_COUNTER_PURGE_JOB), "not due yet");
  service.clock.advance(1);
  assert.ok((await service.scheduler.tick()).includes(SPEND_COUNTER_PURGE_JOB));
  assert.equal(await billing.capSpent(daily), 0n, "purged once the hold is over");
});
