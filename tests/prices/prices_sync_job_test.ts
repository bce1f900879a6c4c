import assert from "node:assert/strict";
import { type LogLine, ManualClock } from "../../actors/kernel/mod.ts";
import {
  FAILURE_WARN_EVERY_MS,
  FilePriceSource,
  PRICES_SETTING,
  PricesSyncJob,
  PriceView,
} from "../../actors/prices/mod.ts";
import { Scheduler } from "../../actors/runtime/mod.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { runJobOnce } from "../support/jobs.ts";

const START_MS = Date.UTC(2026, 10, 20, 12);
const INTERVAL_MS = 300_000;

const PRICES_A = {
  taoUsd: 412.5,
  alphaTao: 0.0095315,
  minerAlphaPerDay: 2952,
  at: "2026-11-20T11:59:00.000Z",
};
const PRICES_B = { taoUsd: 398.25, alphaTao: 0.012, minerAlphaPerDay: 1476, at: "2026-11-20T12:29:00.000Z" };

/** A prices file the test edits (the real file adapter), a job and a view on `storage`. */
async function setUp(storage: Storage) {
  const dir = await Deno.makeTempDir({ prefix: "fgw_prices_job_" });
  const path = `${dir}/prices.json`;
  const clock = new ManualClock(START_MS);
  const lines: LogLine[] = [];
  const view = new PriceView({ settings: storage.settings, clock: clock.now, intervalMs: INTERVAL_MS });
  const job = new PricesSyncJob({
    source: new FilePriceSource({ path }),
    settings: storage.settings,
    log: (line) => lines.push(line),
    intervalMs: INTERVAL_MS,
    afterSync: () => view.refresh(),
  });
  return {
    clock,
    lines,
    view,
    job,
    write: (prices: object | string) =>
      Deno.writeTextFile(path, typeof prices === "string" ? prices : JSON.stringify(prices)),
    run: () => runJobOnce(job, { leases: storage.jobLeases, nowMs: clock.now() }),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

adapterTest(
  "a sync is served by every instance's view, fresh until 3 intervals pass without another",
  async (adapter) => {
    await using t = await setUp(adapter.storage);
    assert.deepEqual(t.view.current(), { prices: null, syncedAtMs: null, stale: true });

    await t.write(PRICES_A);
    await t.run();
    assert.deepEqual(t.view.current(), { prices: PRICES_A, syncedAtMs: START_MS, stale: false });
    const other = new PriceView({
      settings: (await adapter.openAnother()).settings,
      clock: t.clock.now,
      intervalMs: INTERVAL_MS,
    });
    await other.refresh();
    assert.deepEqual(other.current(), t.view.current());

    t.clock.set(START_MS + 3 * INTERVAL_MS);
    assert.equal(t.view.current().stale, false);
    t.clock.advance(1);
    assert.deepEqual(t.view.current(), { prices: PRICES_A, syncedAtMs: START_MS, stale: true });

    await t.write(PRICES_B);
    await t.run();
    await other.refresh();
    assert.deepEqual(other.current(), {
      prices: PRICES_B,
      syncedAtMs: START_MS + 3 * INTERVAL_MS + 1,
      stale: false,
    });
  },
);

adapterTest(
  "a failed sync keeps the last prices and their sync time, so they turn stale",
  async (adapter) => {
    await using t = await setUp(adapter.storage);
    await t.write(PRICES_A);
    await t.run();
    for (const broken of ["{not json", JSON.stringify({ ...PRICES_B, taoUsd: -1 })]) {
      await t.write(broken);
      t.clock.advance(INTERVAL_MS);
      await t.run();
      await t.view.refresh();
      assert.deepEqual(t.view.current(), { prices: PRICES_A, syncedAtMs: START_MS, stale: false });
    }
    t.clock.advance(INTERVAL_MS + 1);
    await t.run();
    assert.deepEqual(t.view.current(), { prices: PRICES_A, syncedAtMs: START_MS, stale: true });
    assert.equal(t.job.failures, 3);
  },
);

adapterTest("a run whose lease was taken over cannot overwrite the newer run's prices", async (adapter) => {
  await using t = await setUp(adapter.storage);
  const leases = adapter.storage.jobLeases;
  const old = await leases.tryAcquire(t.job.name, { holder: "instance-a", ttlMs: 60_000 });
  assert.ok(old);
  await leases.release(t.job.name, old);
  await t.write(PRICES_B);
  await t.run();

  await t.write(PRICES_A);
  await t.job.run(t.clock.now(), {
    signal: new AbortController().signal,
    fence: { job: t.job.name, token: old.token },
  });
  await t.view.refresh();
  assert.deepEqual(t.view.current().prices, PRICES_B);
  assert.ok(
    t.lines.some((line) =>
      line.level === "warn" && line.msg === "prices not recorded: a newer run holds the job"
    ),
  );
});

Deno.test("the scheduler runs the prices job under its lease, once per FGW_PRICES_SYNC_MS", async () => {
  await using storage = await openKv();
  await using t = await setUp(storage);
  await t.write(PRICES_A);
  const scheduler = new Scheduler({
    leases: storage.jobLeases,
    clock: t.clock.now,
    holder: "a",
    jobs: [t.job],
  });
  assert.deepEqual(await scheduler.tick(), ["prices-sync"]);
  t.clock.advance(INTERVAL_MS - 1);
  assert.deepEqual(await scheduler.tick(), []);
  await t.write(PRICES_B);
  t.clock.advance(1);
  assert.deepEqual(await scheduler.tick(), ["prices-sync"]);
  await scheduler.stop();
  assert.deepEqual(t.view.current(), { prices: PRICES_B, syncedAtMs: START_MS + INTERVAL_MS, stale: false });
});

Deno.test("after a failed sync the job retries sooner: 15 s, doubling up to the interval; a success restores it", async () => {
  await using storage = await openKv();
  await using t = await setUp(storage);
  assert.equal(t.job.intervalMs(), INTERVAL_MS);
  const waits: number[] = [];
  for (let i = 0; i < 6; i++) {
    await t.run();
    waits.push(t.job.intervalMs());
  }
  assert.deepEqual(waits, [15_000, 30_000, 60_000, 120_000, 240_000, INTERVAL_MS]);
  await t.write(PRICES_A);
  await t.run();
  assert.equal(t.job.intervalMs(), INTERVAL_MS);
});

Deno.test("a source that keeps failing is logged as a warning when it starts and then hourly, not at every run", async () => {
  await using storage = await openKv();
  await using t = await setUp(storage);
  const runs = 2 * FAILURE_WARN_EVERY_MS / INTERVAL_MS; // two hours of failed runs
  for (let i = 0; i < runs; i++) {
    await t.run();
    t.clock.advance(INTERVAL_MS);
  }
  const failures = t.lines.filter((line) =>
    line.msg === "prices source unreachable; the last prices are kept"
  );
  assert.equal(failures.length, runs);
  assert.deepEqual(failures.filter((line) => line.level === "warn").map((line) => line.failures), [1, 13]);
  assert.match(String(failures[0]!.reason), /Cannot read prices file/);

  await t.write(PRICES_A);
  await t.run();
  const recovered = t.lines.at(-1)!;
  assert.deepEqual(
    { level: recovered.level, msg: recovered.msg, failures: recovered.failures, prices: recovered.prices },
    { level: "info", msg: "prices source recovered", failures: runs, prices: PRICES_A },
  );
  t.clock.advance(INTERVAL_MS);
  await t.run();
  assert.equal(t.lines.at(-1)!.level, "debug");
});

Deno.test("a stored record that is not prices is refused by the view, which keeps what it had", async () => {
  await using storage = await openKv();
  await using t = await setUp(storage);
  await t.write(PRICES_A);
  await t.run();
  const lease = await storage.jobLeases.tryAcquire(t.job.name, { holder: "x", ttlMs: 60_000 });
  assert.ok(lease);
  const fence = { job: t.job.name, token: lease.token };
  assert.ok(await storage.settings.putFenced(PRICES_SETTING, { value: '{"prices":{}}', fence }));
  await assert.rejects(t.view.refresh(), /Invalid stored prices \(prices_latest\): prices.taoUsd/);
  assert.deepEqual(t.view.current().prices, PRICES_A);
});

async function openKv(): Promise<Storage & AsyncDisposable> {
  const storage = await openKvStorage(":memory:");
  return Object.assign(storage, { [Symbol.asyncDispose]: () => storage.close() });
}
