import assert from "node:assert/strict";
import { type LogLine, ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { Scheduler } from "../../actors/runtime/mod.ts";
import {
  FileMetagraphSource,
  metagraphFileOf,
  type MetagraphSnapshot,
  MetagraphSyncJob,
  MetagraphView,
  SubtensorMetagraphSource,
} from "../../actors/validators/mod.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { Storage } from "../../storage/storage.ts";
import { startFakeSubtensor } from "../support/fake_subtensor.ts";
import { runJobOnce } from "../support/jobs.ts";
import { encodeNeuronsLite, generateNeurons } from "../support/neuron_info_scale.ts";
import { hotkeyOf, metagraphOf, neuronOfFixture } from "../support/neurons.ts";

const START_MS = Date.UTC(2026, 10, 20, 12);
const INTERVAL_MS = 300_000;
const NETUID = 41;

/** A job on a metagraph file in a temporary directory, a view, and what it logged. */
interface Rig extends AsyncDisposable {
  storage: Storage;
  clock: ManualClock;
  job: MetagraphSyncJob;
  view: MetagraphView;
  logs: LogLine[];
  /** Writes the metagraph file the job reads (or raw text: a broken file). */
  write(metagraph: MetagraphSnapshot | string): Promise<void>;
  /** Runs the job once under a fresh lease, at the clock's time. */
  sync(): Promise<void>;
}

async function openRig(): Promise<Rig> {
  const dir = await Deno.makeTempDir({ prefix: "fgw_metagraph_" });
  const path = `${dir}/metagraph.json`;
  const storage = await openKvStorage(":memory:");
  const clock = new ManualClock(START_MS);
  const logs: LogLine[] = [];
  const view = new MetagraphView({ store: storage.metagraph, netuid: NETUID, syncIntervalMs: INTERVAL_MS });
  const job = new MetagraphSyncJob({
    source: new FileMetagraphSource({ path, netuid: NETUID }),
    store: storage.metagraph,
    netuid: NETUID,
    intervalMs: INTERVAL_MS,
    clock: clock.now,
    log: (line) => logs.push(line),
    afterSync: () => view.refresh(),
  });
  return {
    storage,
    clock,
    job,
    view,
    logs,
    write: (metagraph) =>
      Deno.writeTextFile(
        path,
        typeof metagraph === "string" ? metagraph : JSON.stringify(metagraphFileOf(metagraph)),
      ),
    sync: () => runJobOnce(job, { leases: storage.jobLeases, nowMs: clock.now() }),
    [Symbol.asyncDispose]: async () => {
      await storage.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("a sync records the metagraph and the view answers lookups by hotkey", async () => {
  await using rig = await openRig();
  assert.equal(rig.view.status(rig.clock.now()), "never_synced");
  await rig.write(metagraphOf(12, { validators: [0, 3], block: 500 }));
  await rig.sync();
  const validator = rig.view.neuron(hotkeyOf(3));
  assert.ok(validator);
  assert.equal(validator.uid, 3);
  assert.equal(validator.validatorPermit, true);
  assert.equal(validator.stakeRao, 2n ** 63n + 3n);
  assert.equal(validator.active, true);
  assert.equal(validator.firstSeenAtMs, START_MS);
  assert.equal(rig.view.neuron(hotkeyOf(7))?.active, false);
  assert.equal(rig.view.neuron(hotkeyOf(12)), undefined, "a hotkey outside the metagraph");
  assert.equal(rig.view.status(rig.clock.now()), "fresh");
  assert.equal(rig.view.metagraph?.block, 500);
  assert.equal(await rig.storage.metagraph.lastSyncedAt(NETUID), START_MS);
  assert.deepEqual(rig.logs.map((line) => [line.level, line.msg, line.neurons, line.validators]), [
    ["info", "metagraph synced", 12, 2],
  ]);
});

/** The code, status detail and Retry-After of what `requireFresh` throws, or "fresh". */
function refusal(view: MetagraphView, nowMs: number): string {
  try {
    view.requireFresh(nowMs);
    return "fresh";
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    return `${error.code} ${error.details?.status} ${error.retryAfterSeconds}`;
  }
}

Deno.test("the metagraph is fresh for three sync intervals after the last success, then stale", async () => {
  await using rig = await openRig();
  assert.equal(refusal(rig.view, rig.clock.now()), "metagraph_unavailable never_synced 60");
  await rig.write(metagraphOf(3));
  await rig.sync();
  rig.clock.advance(3 * INTERVAL_MS);
  assert.equal(rig.view.status(rig.clock.now()), "fresh");
  assert.equal(refusal(rig.view, rig.clock.now()), "fresh");
  rig.clock.advance(1);
  assert.equal(rig.view.status(rig.clock.now()), "stale");
  assert.equal(refusal(rig.view, rig.clock.now()), "metagraph_unavailable stale 60");
  await rig.sync();
  assert.equal(rig.view.status(rig.clock.now()), "fresh", "a new success makes it fresh again");
});

Deno.test("a failed sync keeps the last metagraph and its sync time, logs once, and retries sooner", async () => {
  await using rig = await openRig();
  await rig.write(metagraphOf(5, { block: 10 }));
  await rig.sync();
  await rig.write('{"netuid": 41, "block": 11, "neurons": [{"uid": 0}]}');
  const waits: number[] = [];
  for (let attempt = 0; attempt < 7; attempt++) {
    rig.clock.advance(rig.job.intervalMs());
    await rig.sync();
    waits.push(rig.job.intervalMs());
  }
  assert.deepEqual(waits, [15_000, 30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
  assert.equal(await rig.storage.metagraph.lastSyncedAt(NETUID), START_MS, "the sync time stays");
  assert.equal((await rig.storage.metagraph.latest(NETUID))?.block, 10);
  await rig.view.refresh();
  assert.equal(rig.view.metagraph?.neurons.length, 5);
  assert.equal(rig.view.status(rig.clock.now()), "stale", `${rig.clock.now() - START_MS} ms without success`);
  const failures = rig.logs.filter((line) => line.msg.startsWith("metagraph sync failed"));
  assert.equal(failures.length, 7, "one line per attempt");
  assert.equal(failures[0]?.level, "warn");
  assert.match(String(failures[0]?.reason), /Invalid metagraph file: neurons\.0\.hotkey/);
  await rig.write(metagraphOf(6, { block: 12 }));
  await rig.sync();
  assert.equal(rig.job.intervalMs(), INTERVAL_MS, "a success ends the backoff");
  assert.equal(rig.view.status(rig.clock.now()), "fresh");
  assert.equal(rig.view.metagraph?.block, 12);
});

Deno.test("a run that lost its lease records nothing, and says so", async () => {
  await using rig = await openRig();
  await rig.write(metagraphOf(4, { block: 1 }));
  await rig.sync();
  await rig.write(metagraphOf(9, { block: 2 }));
  const lease = await rig.storage.jobLeases.tryAcquire(rig.job.name, { holder: "a", ttlMs: 60_000 });
  assert.ok(lease);
  await rig.storage.jobLeases.tryAcquire(rig.job.name, { holder: "a", ttlMs: 60_000 });
  const stale = { job: rig.job.name, token: lease.token };
  await rig.job.run(rig.clock.now(), { signal: new AbortController().signal, fence: stale });
  assert.equal((await rig.storage.metagraph.latest(NETUID))?.block, 1);
  assert.equal(rig.logs.at(-1)?.msg, "metagraph sync not recorded: a newer run holds the job");
});

Deno.test("another instance's view picks up a sync on its next refresh", async () => {
  await using rig = await openRig();
  const dir = await Deno.makeTempDir({ prefix: "fgw_kv_" });
  const first = await openKvStorage(`${dir}/store.sqlite`);
  const second = await openKvStorage(`${dir}/store.sqlite`);
  try {
    const job = new MetagraphSyncJob({
      source: { name: "fixed", fetch: () => Promise.resolve(metagraphOf(8, { block: 77 })) },
      store: first.metagraph,
      netuid: NETUID,
      intervalMs: INTERVAL_MS,
      clock: rig.clock.now,
      log: () => {},
    });
    const view = new MetagraphView({ store: second.metagraph, netuid: NETUID, syncIntervalMs: INTERVAL_MS });
    await view.refresh();
    assert.equal(view.status(rig.clock.now()), "never_synced");
    await runJobOnce(job, { leases: first.jobLeases, nowMs: rig.clock.now() });
    assert.equal(view.status(rig.clock.now()), "never_synced", "not before its refresh");
    await view.refresh();
    assert.equal(view.metagraph?.block, 77);
    assert.equal(view.neuron(hotkeyOf(2))?.uid, 2);
  } finally {
    await first.close();
    await second.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the scheduler runs the sync against a Subtensor node, one instance at a time", async () => {
  const fixtures = generateNeurons(1024, { netuid: NETUID, validators: [1, 2, 3, 500] });
  await using node = startFakeSubtensor({ payloads: { [NETUID]: encodeNeuronsLite(fixtures) } });
  const storage = await openKvStorage(":memory:");
  const clock = new ManualClock(START_MS);
  const view = new MetagraphView({ store: storage.metagraph, netuid: NETUID, syncIntervalMs: INTERVAL_MS });
  const jobFor = () =>
    new MetagraphSyncJob({
      source: new SubtensorMetagraphSource({ url: node.url, netuid: NETUID, retries: 0 }),
      store: storage.metagraph,
      netuid: NETUID,
      intervalMs: INTERVAL_MS,
      clock: clock.now,
      log: () => {},
      afterSync: () => view.refresh(),
    });
  const schedulers = ["a", "b"].map((holder) =>
    new Scheduler({ leases: storage.jobLeases, clock: clock.now, holder, jobs: [jobFor()] })
  );
  try {
    const ran = await Promise.all(schedulers.map((scheduler) => scheduler.tick()));
    assert.deepEqual(ran.flat(), ["metagraph-sync"], "one instance ran it");
    assert.deepEqual(
      view.metagraph?.neurons.map(({ firstSeenAtMs: _, ...n }) => n),
      fixtures.map(neuronOfFixture),
    );
    assert.equal(node.calls.filter((call) => call.method === "state_call").length, 1);
  } finally {
    await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
    await storage.close();
  }
});
