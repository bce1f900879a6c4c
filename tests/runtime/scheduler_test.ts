import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { type JobRun, Scheduler } from "../../actors/runtime/mod.ts";
import { adapterTest } from "../support/adapters.ts";
import {
  instance,
  INTERVAL_MS,
  RunLedger,
  runUntil,
  START_MS,
  twoInstances,
} from "../support/scheduler_runs.ts";

adapterTest(
  "two instances sharing one store run the job exactly once per interval, never concurrently",
  { needs: "concurrency" },
  async (adapter) => {
    const ledger = new RunLedger();
    const { clock, a, b } = twoInstances(adapter.storage, await adapter.openAnother(), ledger);
    await runUntil(clock, 119_000, [a, b]);
    assert.equal(ledger.runs.length, 12);
    const times = ledger.runs.map((run) => run.split("@")[1]);
    assert.deepEqual(times, Array.from({ length: 12 }, (_, index) => `${index * 10}s`));
    assert.equal(new Set(ledger.runs.map((run) => run.split("@")[0])).size, 1, "the holder keeps the job");
    assert.equal(ledger.maxActive, 1);
    assert.deepEqual(ledger.tokens, ledger.tokens.toSorted((x, y) => x - y), "each run has a larger token");
    assert.equal(new Set(ledger.tokens).size, 12);
    assert.deepEqual([...a.errors, ...b.errors], []);
  },
);

adapterTest(
  "the other instance takes the job over once the holder stops and releases it",
  async (adapter) => {
    const ledger = new RunLedger();
    const { clock, a, b } = twoInstances(adapter.storage, await adapter.openAnother(), ledger);
    assert.deepEqual(await a.scheduler.tick(), ["sync"]);
    assert.deepEqual(await b.scheduler.tick(), []);
    await runUntil(clock, 15_000, [a, b]);
    await a.scheduler.stop();
    await runUntil(clock, 40_000, [b]);
    assert.deepEqual(ledger.runs, ["a@0s", "a@10s", "b@20s", "b@30s", "b@40s"]);
    assert.ok(ledger.tokens[2]! > ledger.tokens[1]!, "b's token is larger than a's");
  },
);

adapterTest(
  "a job that throws is reported to onError and runs again at the next interval",
  async (adapter) => {
    const ledger = new RunLedger();
    const clock = new ManualClock(START_MS);
    let calls = 0;
    const failure = new Error("Cannot reach source: connection refused");
    const a = instance(
      adapter.storage,
      clock,
      "instance-a",
      ledger.job("a", () => ++calls === 1 ? Promise.reject(failure) : Promise.resolve()),
    );
    assert.deepEqual(await a.scheduler.tick(), ["sync"]);
    assert.deepEqual(a.errors, [["sync", failure]]);
    clock.advance(INTERVAL_MS - 1);
    assert.deepEqual(await a.scheduler.tick(), [], "a failed run still waits for the next interval");
    clock.advance(1);
    assert.deepEqual(await a.scheduler.tick(), ["sync"]);
    assert.deepEqual(ledger.runs, ["a@0s", "a@10s"]);
    assert.equal(a.errors.length, 1);
  },
);

adapterTest("a tick while a run is still in flight does not start a second run", async (adapter) => {
  const ledger = new RunLedger();
  const clock = new ManualClock(START_MS);
  const started = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const a = instance(
    adapter.storage,
    clock,
    "instance-a",
    ledger.job("a", () => (started.resolve(), gate.promise)),
  );
  const b = instance(await adapter.openAnother(), clock, "instance-b", ledger.job("b"));
  const first = a.scheduler.tick();
  await started.promise;
  clock.advance(INTERVAL_MS);
  assert.deepEqual(await a.scheduler.tick(), []);
  assert.deepEqual(await b.scheduler.tick(), []);
  assert.deepEqual(ledger.runs, ["a@0s"]);
  gate.resolve();
  assert.deepEqual(await first, ["sync"]);
  assert.equal(ledger.maxActive, 1);
});

adapterTest("start runs due jobs on a timer and stop hands the lease over at once", async (adapter) => {
  const ledger = new RunLedger();
  const clock = new ManualClock(START_MS);
  const ran = Promise.withResolvers<void>();
  const a = new Scheduler({
    leases: adapter.storage.jobLeases,
    clock: clock.now,
    holder: "instance-a",
    jobs: [ledger.job("a", () => Promise.resolve(ran.resolve()))],
    pollMs: 5,
  });
  const b = instance(await adapter.openAnother(), clock, "instance-b", ledger.job("b"));
  a.start();
  await ran.promise;
  await a.stop();
  assert.deepEqual(await b.scheduler.tick(), ["sync"]);
  assert.deepEqual(ledger.runs, ["a@0s", "b@0s"]);
});

adapterTest("stop aborts the signal of a run in flight and waits for it", async (adapter) => {
  const ledger = new RunLedger();
  const clock = new ManualClock(START_MS);
  const started = Promise.withResolvers<JobRun>();
  const job = ledger.job("a", async (run) => {
    started.resolve(run);
    await new Promise((resolve) => run.signal.addEventListener("abort", resolve));
  });
  const a = new Scheduler({ leases: adapter.storage.jobLeases, clock: clock.now, holder: "a", jobs: [job] });
  a.start();
  const run = await started.promise;
  await a.stop();
  assert.equal(run.signal.aborted, true);
  assert.equal(ledger.active, 0, "the run ended before stop resolved");
});

adapterTest("a run that fails because stop aborted it is not reported as a job failure", async (adapter) => {
  const clock = new ManualClock(START_MS);
  const started = Promise.withResolvers<void>();
  const errors: unknown[] = [];
  const job = new RunLedger().job("a", async (run) => {
    started.resolve();
    await new Promise((resolve) => run.signal.addEventListener("abort", resolve));
    throw run.signal.reason;
  });
  const a = new Scheduler({
    leases: adapter.storage.jobLeases,
    clock: clock.now,
    holder: "a",
    jobs: [job],
    onError: (_job, error) => errors.push(error),
  });
  a.start();
  await started.promise;
  await a.stop();
  assert.deepEqual(errors, []);
});
