import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { type JobRun, LeaseLostError } from "../../actors/runtime/mod.ts";
import type { JobLeaseStore } from "../../storage/job_lease_store.ts";
import { adapterTest } from "../support/adapters.ts";
import {
  instance,
  LEASE_MS,
  RunLedger,
  SHORT_LEASE_MS,
  sleep,
  START_MS,
  STEP_MS,
} from "../support/scheduler_runs.ts";

adapterTest(
  "the other instance takes the job over once a crashed holder's lease expires on the storage's clock",
  async (adapter) => {
    const ledger = new RunLedger();
    const clock = new ManualClock(START_MS);
    const a = instance(adapter.storage, clock, "instance-a", ledger.job("a"), { leaseMs: SHORT_LEASE_MS });
    const b = instance(await adapter.openAnother(), clock, "instance-b", ledger.job("b"));
    assert.deepEqual(await a.scheduler.tick(), ["sync"]);
    // Instance a crashes here: it never ticks again and never releases its lease.
    await sleep(3 * SHORT_LEASE_MS);
    assert.deepEqual(await b.scheduler.tick(), ["sync"], "no scheduler time passed, yet the lease expired");
    assert.deepEqual(ledger.runs, ["a@0s", "b@0s"]);
    assert.ok(ledger.tokens[1]! > ledger.tokens[0]!);
  },
);

adapterTest("a run longer than its lease keeps the job while the holder keeps ticking", async (adapter) => {
  // Leases are measured on the storage's clock, the real one: long enough that a busy machine's
  // pause between two renewals cannot outlast one.
  const leaseMs = 2_000;
  const ledger = new RunLedger();
  const clock = new ManualClock(START_MS);
  const started = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const a = instance(
    adapter.storage,
    clock,
    "instance-a",
    ledger.job("a", () => (started.resolve(), gate.promise)),
    {
      leaseMs,
    },
  );
  const b = instance(await adapter.openAnother(), clock, "instance-b", ledger.job("b"));
  const first = a.scheduler.tick();
  await started.promise;
  // Every scheduler step is half the lease, so each tick of a renews it; the real time (the
  // storage's) between ticks stays well under the lease, and the whole loop outlasts it by half.
  const until = performance.now() + 1.5 * leaseMs;
  while (performance.now() < until) {
    await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
    clock.advance(STEP_MS);
    await sleep(leaseMs / 10);
  }
  assert.deepEqual(ledger.runs, ["a@0s"], "b must not start while a's run is in flight");
  gate.resolve();
  await first;
  assert.deepEqual([...a.errors, ...b.errors], []);
  assert.equal(ledger.maxActive, 1);
});

adapterTest(
  "a run whose lease is lost is aborted through its signal, and its late write is refused",
  async (adapter) => {
    const ledger = new RunLedger();
    const clock = new ManualClock(START_MS);
    const other = await adapter.openAnother();
    const started = Promise.withResolvers<JobRun>();
    const gate = Promise.withResolvers<void>();
    const writes: Array<[string, boolean]> = [];
    const write = async (who: string, run: JobRun) => {
      const storage = who === "a" ? adapter.storage : other;
      writes.push([who, await storage.settings.putFenced("sync_result", { value: who, fence: run.fence })]);
    };
    // a's run does not watch its signal: it stands for a run stuck in a call when its lease is lost.
    const aJob = ledger.job(
      "a",
      async (run) => (started.resolve(run), await gate.promise, await write("a", run)),
    );
    const a = instance(adapter.storage, clock, "instance-a", aJob, { leaseMs: SHORT_LEASE_MS });
    const b = instance(other, clock, "instance-b", ledger.job("b", (run) => write("b", run)));
    const first = a.scheduler.tick();
    const aRun = await started.promise;
    await sleep(3 * SHORT_LEASE_MS);
    assert.deepEqual(await b.scheduler.tick(), ["sync"], "a's lease expired: b takes the job over");
    assert.ok(ledger.tokens[1]! > ledger.tokens[0]!, "with a larger token");
    assert.equal(aRun.signal.aborted, false, "a has not found out yet");
    clock.advance(STEP_MS);
    assert.deepEqual(await a.scheduler.tick(), [], "a's renewal finds the lease lost");
    assert.equal(aRun.signal.aborted, true);
    assert.ok(aRun.signal.reason instanceof LeaseLostError);
    assert.deepEqual(a.errors.map(([job, error]) => [job, error instanceof LeaseLostError]), [[
      "sync",
      true,
    ]]);
    gate.resolve();
    assert.deepEqual(await first, ["sync"]);
    assert.deepEqual(writes, [["b", true], ["a", false]]);
    assert.equal(
      await adapter.storage.settings.get("sync_result"),
      "b",
      "the late writer did not overwrite b",
    );
    assert.equal(a.errors.length, 1, "the loss is reported once");
  },
);

adapterTest("a renewal that fails with an error aborts the run too", async (adapter) => {
  const ledger = new RunLedger();
  const clock = new ManualClock(START_MS);
  const store = adapter.storage.jobLeases;
  const outage = new Error("Cannot reach storage: connection reset");
  // The real store, whose renewals fail as during a storage outage.
  const leases: JobLeaseStore = {
    tryAcquire: (job, options) => store.tryAcquire(job, options),
    renew: () => Promise.reject(outage),
    release: (job, options) => store.release(job, options),
    checkFence: (fence) => store.checkFence(fence),
  };
  const started = Promise.withResolvers<JobRun>();
  const job = ledger.job("a", async (run) => {
    started.resolve(run);
    await new Promise((resolve) => run.signal.addEventListener("abort", resolve));
    run.signal.throwIfAborted();
  });
  const a = instance(adapter.storage, clock, "instance-a", job, { leases });
  const first = a.scheduler.tick();
  const run = await started.promise;
  clock.advance(LEASE_MS / 2 - 1);
  await a.scheduler.tick();
  assert.equal(run.signal.aborted, false, "no renewal due yet");
  clock.advance(1);
  await a.scheduler.tick();
  assert.deepEqual(await first, ["sync"]);
  assert.ok(run.signal.reason instanceof LeaseLostError);
  assert.equal(run.signal.reason.cause, outage);
  assert.deepEqual(a.errors, [["sync", run.signal.reason]], "reported once, not again when the run threw");
});
