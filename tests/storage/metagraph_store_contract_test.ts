import assert from "node:assert/strict";
import type { MetagraphSnapshot } from "../../actors/validators/mod.ts";
import type { JobLeaseStore } from "../../storage/job_lease_store.ts";
import type { Fence } from "../../storage/job_lease_store.ts";
import type { StoredMetagraph } from "../../storage/metagraph_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { hotkeyOf, metagraphOf, neuronAt } from "../support/neurons.ts";

const JOB = "metagraph-sync";
const T0 = Date.UTC(2026, 10, 20, 12);
const MINUTE = 60_000;

async function grant(leases: JobLeaseStore, holder = "a"): Promise<Fence> {
  const lease = await leases.tryAcquire(JOB, { holder, ttlMs: 60_000 });
  assert.ok(lease, `${holder} should be granted ${JOB}`);
  return { job: JOB, token: lease.token };
}

/** What `latest` should answer for `metagraph` synced at `syncedAtMs`, given each uid's first sighting. */
function expected(
  metagraph: MetagraphSnapshot,
  syncedAtMs: number,
  firstSeen: (uid: number) => number = () => syncedAtMs,
): StoredMetagraph {
  return {
    netuid: metagraph.netuid,
    block: metagraph.block,
    syncedAtMs,
    neurons: metagraph.neurons.map((n) => ({ ...n, firstSeenAtMs: firstSeen(n.uid) }))
      .toSorted((a, b) => a.uid - b.uid),
  };
}

adapterTest("a subnet never synced has no metagraph, no sync time and no pairs", async ({ storage }) => {
  assert.equal(await storage.metagraph.latest(41), null);
  assert.equal(await storage.metagraph.lastSyncedAt(41), null);
  assert.deepEqual(await storage.metagraph.pairs(41), []);
});

adapterTest(
  "a sync stores every neuron exactly (u64 rao, fractions), its block and sync time",
  async ({ storage }) => {
    const fence = await grant(storage.jobLeases);
    const metagraph = metagraphOf(300, { validators: [0, 5, 299] });
    metagraph.neurons[1]!.stakeRao = 2n ** 64n - 1n;
    metagraph.neurons[2]!.emissionRao = 2n ** 64n - 1n;
    metagraph.neurons.reverse();
    assert.equal(await storage.metagraph.putFenced(metagraph, { syncedAtMs: T0, fence }), true);
    assert.deepEqual(await storage.metagraph.latest(41), expected(metagraph, T0));
    assert.equal(await storage.metagraph.lastSyncedAt(41), T0);
    const pairs = await storage.metagraph.pairs(41);
    assert.equal(pairs.length, 300);
    assert.deepEqual(pairs[3], { uid: 3, hotkey: hotkeyOf(3), firstSeenAtMs: T0 });
  },
);

adapterTest(
  "a pair seen again keeps its first sighting; a uid taken by a new hotkey is a new pair",
  async ({ storage }) => {
    const fence = await grant(storage.jobLeases);
    const first = metagraphOf(4, { block: 100 });
    await storage.metagraph.putFenced(first, { syncedAtMs: T0, fence });
    const second: MetagraphSnapshot = {
      netuid: 41,
      block: 125,
      neurons: [neuronAt(0), neuronAt(1), neuronAt(2, { hotkey: "newcomer" }), neuronAt(4)],
    };
    const later = T0 + 5 * MINUTE;
    assert.equal(await storage.metagraph.putFenced(second, { syncedAtMs: later, fence }), true);
    const firstSeen = (uid: number) => (uid === 2 || uid === 4 ? later : T0);
    assert.deepEqual(await storage.metagraph.latest(41), expected(second, later, firstSeen));
    assert.deepEqual(await storage.metagraph.pairs(41), [
      { uid: 0, hotkey: hotkeyOf(0), firstSeenAtMs: T0 },
      { uid: 1, hotkey: hotkeyOf(1), firstSeenAtMs: T0 },
      { uid: 2, hotkey: hotkeyOf(2), firstSeenAtMs: T0 },
      { uid: 2, hotkey: hotkeyOf("newcomer"), firstSeenAtMs: later },
      { uid: 3, hotkey: hotkeyOf(3), firstSeenAtMs: T0 },
      { uid: 4, hotkey: hotkeyOf(4), firstSeenAtMs: later },
    ]);
    assert.deepEqual(await storage.metagraph.pairs(41, { hotkey: hotkeyOf(2) }), [
      { uid: 2, hotkey: hotkeyOf(2), firstSeenAtMs: T0 },
    ]);
    await storage.metagraph.putFenced(first, { syncedAtMs: later + MINUTE, fence });
    const back = await storage.metagraph.latest(41);
    assert.equal(back?.neurons[2]?.firstSeenAtMs, T0, "the old hotkey back on its uid is the same pair");
    assert.equal((await storage.metagraph.pairs(41)).length, 6);
  },
);

adapterTest("a write of a run that lost its lease is refused and changes nothing", async ({ storage }) => {
  const old = await grant(storage.jobLeases, "a");
  await storage.metagraph.putFenced(metagraphOf(3, { block: 10 }), { syncedAtMs: T0, fence: old });
  const newer = await grant(storage.jobLeases, "a");
  const late = metagraphOf(5, { block: 11 });
  assert.equal(await storage.metagraph.putFenced(late, { syncedAtMs: T0 + MINUTE, fence: old }), false);
  assert.deepEqual(await storage.metagraph.latest(41), expected(metagraphOf(3, { block: 10 }), T0));
  assert.equal(await storage.metagraph.lastSyncedAt(41), T0);
  assert.equal((await storage.metagraph.pairs(41)).length, 3, "no pair of the refused write");
  await storage.jobLeases.release(JOB, newer);
  const released = await storage.metagraph.putFenced(late, { syncedAtMs: T0 + MINUTE, fence: newer });
  assert.equal(released, false, "a released lease fences too");
  assert.equal(await storage.metagraph.lastSyncedAt(41), T0);
});

adapterTest("subnets are kept apart, and an empty metagraph is a metagraph", async ({ storage }) => {
  const fence = await grant(storage.jobLeases);
  await storage.metagraph.putFenced(metagraphOf(3), { syncedAtMs: T0, fence });
  const other = { netuid: 7, block: 9, neurons: [] };
  assert.equal(await storage.metagraph.putFenced(other, { syncedAtMs: T0 + 1, fence }), true);
  assert.deepEqual(await storage.metagraph.latest(7), {
    netuid: 7,
    block: 9,
    syncedAtMs: T0 + 1,
    neurons: [],
  });
  assert.equal((await storage.metagraph.latest(41))?.neurons.length, 3);
  assert.deepEqual(await storage.metagraph.pairs(7), []);
  assert.equal(await storage.metagraph.lastSyncedAt(41), T0);
});

adapterTest("a 1024-neuron metagraph replaces a smaller one whole", async ({ storage }) => {
  const fence = await grant(storage.jobLeases);
  await storage.metagraph.putFenced(metagraphOf(10), { syncedAtMs: T0, fence });
  const big = metagraphOf(1024, { validators: [0, 1, 2, 3, 64, 512, 1023], block: 7 });
  await storage.metagraph.putFenced(big, { syncedAtMs: T0 + MINUTE, fence });
  const firstSeen = (uid: number) => (uid < 10 ? T0 : T0 + MINUTE);
  assert.deepEqual(await storage.metagraph.latest(41), expected(big, T0 + MINUTE, firstSeen));
  await storage.metagraph.putFenced(metagraphOf(2, { block: 8 }), { syncedAtMs: T0 + 2 * MINUTE, fence });
  assert.deepEqual(
    await storage.metagraph.latest(41),
    expected(metagraphOf(2, { block: 8 }), T0 + 2 * MINUTE, () => T0),
  );
  assert.equal((await storage.metagraph.pairs(41)).length, 1024, "pairs are never forgotten");
});

adapterTest(
  "readers on another instance see one whole sync or another, never a mix",
  { needs: "concurrency" },
  async (adapter) => {
    const reader = await adapter.openAnother();
    const fence = await grant(adapter.storage.jobLeases);
    const small = metagraphOf(70, { block: 1 });
    const large = metagraphOf(700, { block: 2 });
    await adapter.storage.metagraph.putFenced(small, { syncedAtMs: T0, fence });
    let writing = true;
    const writer = (async () => {
      for (let i = 1; i <= 6; i++) {
        const metagraph = i % 2 === 0 ? small : large;
        await adapter.storage.metagraph.putFenced(metagraph, { syncedAtMs: T0 + i, fence });
      }
      writing = false;
    })();
    let reads = 0;
    while (writing || reads === 0) {
      const seen = await reader.metagraph.latest(41);
      assert.ok(seen, "a synced subnet always has a metagraph");
      assert.equal(seen.neurons.length, seen.block === 1 ? 70 : 700, `block ${seen.block}`);
      assert.deepEqual(seen.neurons.map((n) => n.uid), [...seen.neurons.keys()]);
      reads++;
    }
    await writer;
  },
);
