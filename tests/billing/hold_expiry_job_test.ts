import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { holdExpiryJob } from "../../actors/billing/mod.ts";
import type { LogLine } from "../../actors/kernel/mod.ts";
import { type AskOrg, orgActorKind, orgAsker, type OrgMessage } from "../../actors/billing/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { ledgerSum } from "../support/ledger.ts";
import { runJobOnce } from "../support/jobs.ts";

/** One service instance's OrgActor asker over `storage`. */
function asker(storage: Storage, clock: ManualClock): AskOrg {
  const kind = orgActorKind({
    orgs: storage.orgs,
    billing: storage.billing,
    clock: clock.now,
    holdTtlMs: 10_000,
  });
  const system = new ActorSystem({ clock: clock.now });
  return orgAsker(system, system.register(kind));
}

adapterTest(
  "hold expiry job releases only expired holds, and a re-run changes nothing",
  async ({ storage }) => {
    const clock = new ManualClock();
    const ask = asker(storage, clock);
    for (const orgId of ["org_a", "org_b"]) {
      await ask(orgId, { type: "create", name: orgId });
      await ask(orgId, { type: "credit", amountMicro: 1_000n, reference: "initial" });
    }
    await ask("org_a", { type: "reserve", amountMicro: 100n });
    await ask("org_a", { type: "reserve", amountMicro: 200n, ttlMs: 60_000 });
    await ask("org_b", { type: "reserve", amountMicro: 300n });
    await ask("org_b", { type: "reserve", amountMicro: 50n });
    const job = holdExpiryJob({ billing: storage.billing, askOrg: ask, intervalMs: 1_000, pageSize: 1 });
    clock.advance(10_000);
    await runJobOnce(job, { leases: storage.jobLeases, nowMs: clock.now() });
    await runJobOnce(job, { leases: storage.jobLeases, nowMs: clock.now() });
    assert.equal((await ask("org_a", { type: "balance" })).heldMicro, 200n);
    assert.equal((await ask("org_b", { type: "balance" })).heldMicro, 0n);
    assert.equal((await ask("org_b", { type: "balance" })).availableMicro, 1_000n);
    assert.equal(await ledgerSum(storage.billing, "org_b"), 1_000n);
    clock.advance(50_000);
    await runJobOnce(job, { leases: storage.jobLeases, nowMs: clock.now() });
    assert.equal((await ask("org_a", { type: "balance" })).heldMicro, 0n);
    assert.deepEqual(await storage.billing.listExpiredHolds(clock.now(), { limit: 10 }), []);
  },
);

adapterTest(
  "hold expiry job still releases the other holds when one release fails, and reports the failure",
  async ({ storage }) => {
    const clock = new ManualClock();
    const ask = asker(storage, clock);
    await ask("org_a", { type: "create", name: "A" });
    await ask("org_a", { type: "credit", amountMicro: 1_000n, reference: "initial" });
    await ask("org_a", { type: "reserve", amountMicro: 100n, holdId: "h-bad", ttlMs: 1_000 });
    for (const [i, holdId] of ["h-1", "h-2", "h-3"].entries()) {
      await ask("org_a", { type: "reserve", amountMicro: 10n, holdId, ttlMs: 2_000 + i });
    }
    const failing =
      ((orgId: string, message: OrgMessage) =>
        "holdId" in message && message.holdId === "h-bad"
          ? Promise.reject(new Error("storage hiccup"))
          : ask(orgId, message as Parameters<AskOrg>[1])) as AskOrg;
    const lines: LogLine[] = [];
    const log = (line: LogLine) => void lines.push(line);
    const options = { billing: storage.billing, intervalMs: 1_000, pageSize: 1, log };
    clock.advance(10_000);
    await assert.rejects(
      runJobOnce(holdExpiryJob({ ...options, askOrg: failing }), {
        leases: storage.jobLeases,
        nowMs: clock.now(),
      }),
      /1 expired hold/,
    );
    assert.equal((await ask("org_a", { type: "balance" })).heldMicro, 100n);
    assert.deepEqual(lines.map((line) => [line.level, line.orgId, line.holdId]), [[
      "warn",
      "org_a",
      "h-bad",
    ]]);
    await runJobOnce(holdExpiryJob({ ...options, askOrg: ask }), {
      leases: storage.jobLeases,
      nowMs: clock.now(),
    });
    assert.equal((await ask("org_a", { type: "balance" })).heldMicro, 0n);
  },
);

adapterTest(
  "settles racing the hold expiry job on another instance charge each call exactly once",
  { needs: "concurrency" },
  async (adapter) => {
    const clock = new ManualClock();
    const second = await adapter.openAnother();
    const [one, two] = [asker(adapter.storage, clock), asker(second, clock)];
    await one("org_a", { type: "create", name: "A" });
    await one("org_a", { type: "credit", amountMicro: 10_000n, reference: "initial" });
    const holds = await Promise.all(
      Array.from({ length: 60 }, () => one("org_a", { type: "reserve", amountMicro: 100n, ttlMs: 1_000 })),
    );
    clock.advance(1_000);
    const job = holdExpiryJob({ billing: second.billing, askOrg: two, intervalMs: 1_000, pageSize: 7 });
    const [replies] = await Promise.all([
      Promise.all(
        holds.map(({ holdId }, i) =>
          one("org_a", { type: "settle", holdId, costMicro: 7n, usage: { description: `call ${i}` } })
        ),
      ),
      runJobOnce(job, { leases: second.jobLeases, nowMs: clock.now() }),
    ]);
    assert.ok(replies.every((reply) => !reply.alreadySettled && reply.chargedMicro === 7n));
    assert.equal((await adapter.storage.billing.listUsage("org_a", { limit: 100 })).length, 60);
    const account = await adapter.storage.billing.getAccount("org_a");
    assert.deepEqual(account && [account.balanceMicro, account.heldMicro], [10_000n - 60n * 7n, 0n]);
    assert.equal(await ledgerSum(adapter.storage.billing, "org_a"), 10_000n - 60n * 7n);
    assert.deepEqual(await adapter.storage.billing.listHolds("org_a"), []);
  },
);

adapterTest("a hold expiry run whose signal is aborted releases nothing more", async ({ storage }) => {
  const clock = new ManualClock();
  const ask = asker(storage, clock);
  await ask("org_a", { type: "create", name: "A" });
  await ask("org_a", { type: "credit", amountMicro: 1_000n, reference: "initial" });
  await ask("org_a", { type: "reserve", amountMicro: 100n, ttlMs: 1_000 });
  clock.advance(1_000);
  const job = holdExpiryJob({ billing: storage.billing, askOrg: ask, intervalMs: 1_000 });
  const aborted = new AbortController();
  aborted.abort(new Error("Scheduler stopped"));
  await job.run(clock.now(), { signal: aborted.signal, fence: { job: job.name, token: 1 } });
  assert.equal((await ask("org_a", { type: "balance" })).heldMicro, 100n, "the next run releases it");
  await runJobOnce(job, { leases: storage.jobLeases, nowMs: clock.now() });
  assert.equal((await ask("org_a", { type: "balance" })).heldMicro, 0n);
});
