import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { type PeriodicJob, Scheduler } from "../../actors/runtime/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { secondInstanceStorage } from "../support/second_instance.ts";

const START_MS = Date.UTC(2026, 10, 20, 12);
const INTERVAL_MS = 10_000;
/** The scheduler's lease time for INTERVAL_MS: twice the interval, at least 30 s. */
const LEASE_MS = Math.max(2 * INTERVAL_MS, 30_000);
const STEP_MS = 1_000;

/** Every run of the job "sync", by any instance: who ran it, and when (ms after START_MS). */
class RunLedger {
  readonly runs: string[] = [];
  active = 0;
  maxActive = 0;

  /** The job as one instance runs it; `body` may throw or block. */
  job(instance: string, body: (atMs: number) => Promise<void> = () => yieldToLoop()): PeriodicJob {
    return {
      name: "sync",
      intervalMs: () => INTERVAL_MS,
      run: async (nowMs) => {
        this.active++;
        this.maxActive = Math.max(this.maxActive, this.active);
        this.runs.push(`${instance}@${(nowMs - START_MS) / 1000}s`);
        try {
          await body(nowMs);
        } finally {
          this.active--;
        }
      },
    };
  }
}

/** Yields to the event loop once, so concurrent ticks really interleave with storage calls. */
function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

interface Instance {
  scheduler: Scheduler;
  errors: Array<[string, unknown]>;
}

function instance(storage: Storage, clock: ManualClock, holder: string, job: PeriodicJob): Instance {
  const errors: Array<[string, unknown]> = [];
  const scheduler = new Scheduler({
    leases: storage.jobLeases,
    clock: clock.now,
    holder,
    jobs: [job],
    onError: (name, error) => errors.push([name, error]),
  });
  return { scheduler, errors };
}

function twoInstances(storage: Storage, other: Storage, ledger: RunLedger) {
  const clock = new ManualClock(START_MS);
  const a = instance(storage, clock, "instance-a", ledger.job("a"));
  const b = instance(other, clock, "instance-b", ledger.job("b"));
  return { clock, a, b };
}

/** Ticks the given instances (twice each, concurrently) at every step until `untilMs` after start. */
async function runUntil(clock: ManualClock, untilMs: number, instances: Instance[]): Promise<void> {
  while (clock.now() - START_MS <= untilMs) {
    await Promise.all(instances.flatMap(({ scheduler }) => [scheduler.tick(), scheduler.tick()]));
    clock.advance(STEP_MS);
  }
}

adapterTest(
  "two instances sharing one store run the job exactly once per interval, never concurrently",
  async (adapter) => {
    const ledger = new RunLedger();
    const { clock, a, b } = twoInstances(adapter.storage, await secondInstanceStorage(adapter), ledger);
    await runUntil(clock, 119_000, [a, b]);
    assert.equal(ledger.runs.length, 12);
    const times = ledger.runs.map((run) => run.split("@")[1]);
    assert.deepEqual(times, Array.from({ length: 12 }, (_, index) => `${index * 10}s`));
    assert.equal(new Set(ledger.runs.map((run) => run.split("@")[0])).size, 1, "the holder keeps the job");
    assert.equal(ledger.maxActive, 1);
    assert.deepEqual([...a.errors, ...b.errors], []);
  },
);

adapterTest(
  "the other instance takes the job over once the holder stops and releases it",
  async (adapter) => {
    const ledger = new RunLedger();
    const { clock, a, b } = twoInstances(adapter.storage, await secondInstanceStorage(adapter), ledger);
    assert.deepEqual(await a.scheduler.tick(), ["sync"]);
    assert.deepEqual(await b.scheduler.tick(), []);
    await runUntil(clock, 15_000, [a, b]);
    await a.scheduler.stop();
    await runUntil(clock, 40_000, [b]);
    assert.deepEqual(ledger.runs, ["a@0s", "a@10s", "b@20s", "b@30s", "b@40s"]);
  },
);

adapterTest(
  "the other instance takes the job over once a crashed holder's lease expires",
  async (adapter) => {
    const ledger = new RunLedger();
    const { clock, a, b } = twoInstances(adapter.storage, await secondInstanceStorage(adapter), ledger);
    assert.deepEqual(await a.scheduler.tick(), ["sync"]);
    await runUntil(clock, 15_000, [a, b]);
    // Instance a crashes here: it never ticks again and never releases its lease (taken at 10 s).
    const expiresAt = 10 + LEASE_MS / 1000;
    await runUntil(clock, (expiresAt + 10) * 1000, [b]);
    assert.deepEqual(ledger.runs, ["a@0s", "a@10s", `b@${expiresAt}s`, `b@${expiresAt + 10}s`]);
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
  const b = instance(await secondInstanceStorage(adapter), clock, "instance-b", ledger.job("b"));
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

adapterTest("a run longer than its lease keeps the job while the holder keeps ticking", async (adapter) => {
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
  const b = instance(await secondInstanceStorage(adapter), clock, "instance-b", ledger.job("b"));
  const first = a.scheduler.tick();
  await started.promise;
  await runUntil(clock, 3 * LEASE_MS, [a, b]);
  assert.deepEqual(ledger.runs, ["a@0s"], "b must not start while a's run is in flight");
  gate.resolve();
  await first;
  const endedAt = clock.now() - START_MS;
  await runUntil(clock, endedAt + INTERVAL_MS, [a, b]);
  assert.deepEqual(ledger.runs, ["a@0s", `a@${(endedAt + INTERVAL_MS) / 1000}s`]);
  assert.equal(ledger.maxActive, 1);
  assert.deepEqual([...a.errors, ...b.errors], []);
});

adapterTest("a holder that did not tick before its lease expired reports the lost lease", async (adapter) => {
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
  const b = instance(await secondInstanceStorage(adapter), clock, "instance-b", ledger.job("b"));
  const first = a.scheduler.tick();
  await started.promise;
  clock.advance(LEASE_MS);
  assert.deepEqual(await b.scheduler.tick(), ["sync"], "a's lease expired: b takes the job");
  assert.deepEqual(await a.scheduler.tick(), []);
  assert.equal(a.errors.length, 1);
  assert.equal(a.errors[0]?.[0], "sync");
  assert.match(String(a.errors[0]?.[1]), /Cannot renew job lease/);
  gate.resolve();
  await first;
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
  const b = instance(await secondInstanceStorage(adapter), clock, "instance-b", ledger.job("b"));
  a.start();
  await ran.promise;
  await a.stop();
  assert.deepEqual(await b.scheduler.tick(), ["sync"]);
  assert.deepEqual(ledger.runs, ["a@0s", "b@0s"]);
});
