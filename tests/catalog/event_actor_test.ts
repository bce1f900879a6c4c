import assert from "node:assert/strict";
import { isoAt, ManualClock, ServiceError } from "../../actors/kernel/mod.ts";
import { eventActorKind } from "../../actors/catalog/mod.ts";
import type { AdmissionRules } from "../../actors/catalog/mod.ts";
import { ActorSystem } from "../../actors/runtime/mod.ts";
import type { SourceMarket } from "../../actors/catalog/mod.ts";
import type { StoredEvent } from "../../storage/event_record.ts";
import type { EventStore } from "../../storage/event_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { MARKET_NOW_MS, NO, sourceMarket, YES } from "../support/markets.ts";

const RULES: AdmissionRules = {
  minLiquidityUsd: 1_000,
  minVolumeUsd: 1_000,
  lastSeenResolutionMs: 15 * 60_000,
};
const IDLE_MS = 60_000;
const EVENT_ID = "polymarket-612345";

/** One service instance's actors for events, over `store`. */
function instance(store: EventStore, clock: ManualClock) {
  const system = new ActorSystem({ clock: clock.now, idleMs: IDLE_MS });
  const kind = system.register(eventActorKind({ store, rules: RULES, clock: clock.now }));
  return {
    system,
    observe: (market: SourceMarket) => system.ask(kind, EVENT_ID, { type: "observe", market }),
    get: () => system.ask(kind, EVENT_ID, { type: "get" }),
  };
}

function priced(yes: number): SourceMarket {
  return sourceMarket({ outcomePrices: { [YES]: yes, [NO]: Math.round((1 - yes) * 1000) / 1000 } });
}

/** `store`, with every write it accepted recorded in `writes`, and the count of refused writes. */
function recording(store: EventStore) {
  const writes: StoredEvent[] = [];
  let conflicts = 0;
  const recorded: EventStore = {
    get: (id) => store.get(id),
    listChanged: (after, limit) => store.listChanged(after, limit),
    count: () => store.count(),
    retireSource: (source, nowMs) => store.retireSource(source, nowMs),
    put: async (event, expectedVersion, nowMs) => {
      const written = await store.put(event, expectedVersion, nowMs);
      if (written) writes.push(written);
      else conflicts++;
      return written;
    },
  };
  return { store: recorded, writes, conflicts: () => conflicts };
}

adapterTest("observe admits a new market, then applies its later sightings", async ({ storage }) => {
  const clock = new ManualClock(MARKET_NOW_MS);
  const a = instance(storage.events, clock);
  assert.deepEqual(await a.observe(priced(0.6)), { outcome: "admitted" });
  const admitted = await storage.events.get(EVENT_ID);
  assert.equal(admitted?.version, 1);
  assert.deepEqual(admitted?.event.currentOutcomePrices, { [YES]: 0.6, [NO]: 0.4 });
  assert.equal(admitted?.event.admittedAt, isoAt(MARKET_NOW_MS));

  clock.advance(60_000);
  assert.deepEqual(await a.observe(priced(0.7)), { outcome: "updated" });
  const updated = await storage.events.get(EVENT_ID);
  assert.equal(updated?.version, 2);
  assert.deepEqual(updated?.event.currentOutcomePrices, { [YES]: 0.7, [NO]: 0.3 });
  assert.deepEqual(updated?.event.outcomePricesAtAdmission, { [YES]: 0.6, [NO]: 0.4 });
  assert.equal(updated?.updatedAtMs, MARKET_NOW_MS + 60_000);
  assert.deepEqual(await a.get(), updated?.event);
});

adapterTest("a refused market is answered with the reason and not stored", async ({ storage }) => {
  const clock = new ManualClock(MARKET_NOW_MS);
  const a = instance(storage.events, clock);
  assert.deepEqual(await a.observe(sourceMarket({ liquidityUsd: 10 })), {
    outcome: "refused",
    reason: "liquidity below minimum",
  });
  assert.equal(await a.get(), null);
  assert.equal(await storage.events.get(EVENT_ID), null);
  assert.equal(await storage.events.count(), 0);
});

adapterTest(
  "an identical sighting is unchanged and the stored version does not move",
  async ({ storage }) => {
    const clock = new ManualClock(MARKET_NOW_MS);
    const a = instance(storage.events, clock);
    await a.observe(priced(0.6));
    clock.advance(60_000);
    assert.deepEqual(await a.observe(priced(0.6)), { outcome: "unchanged" });
    assert.equal((await storage.events.get(EVENT_ID))?.version, 1);

    clock.advance(IDLE_MS);
    assert.equal(
      a.system.sweep(),
      1,
      "evicted: the next sighting compares with the event loaded from storage",
    );
    assert.deepEqual(await a.observe(priced(0.6)), { outcome: "unchanged" });
    assert.equal((await storage.events.get(EVENT_ID))?.version, 1);

    clock.set(MARKET_NOW_MS + RULES.lastSeenResolutionMs);
    assert.deepEqual(
      await a.observe(priced(0.6)),
      { outcome: "updated" },
      "the last-seen heartbeat is written",
    );
    const stored = await storage.events.get(EVENT_ID);
    assert.equal(stored?.version, 2);
    assert.equal(stored?.event.lastSeenAt, isoAt(MARKET_NOW_MS + RULES.lastSeenResolutionMs));
  },
);

adapterTest(
  "two instances updating one market at once both succeed, with no lost update",
  { needs: "concurrency" },
  async (adapter) => {
    const clock = new ManualClock(MARKET_NOW_MS);
    const first = recording(adapter.storage.events);
    const second = recording((await adapter.openAnother()).events);
    const a = instance(first.store, clock);
    const b = instance(second.store, clock);
    assert.deepEqual(await a.observe(priced(0.5)), { outcome: "admitted" });
    const cached = await b.get();
    assert.ok(cached !== null && "id" in cached && cached.id === EVENT_ID, "b has version 1 cached");
    clock.advance(1_000);

    const replies = await Promise.all([a.observe(priced(0.61)), b.observe(priced(0.72))]);
    assert.deepEqual(replies, [{ outcome: "updated" }, { outcome: "updated" }]);
    // Whether the writes interleave depends on timing; when they do, exactly one instance loses its
    // condition and retries.
    assert.ok(first.conflicts() + second.conflicts() <= 1, "at most one lost condition, then a retry");
    const writes = [...first.writes, ...second.writes].toSorted((x, y) => x.version - y.version);
    assert.deepEqual(writes.map((write) => write.version), [1, 2, 3]);
    const [, v2, v3] = writes.map((write) => write.event.currentOutcomePrices[YES]);
    assert.deepEqual([v2, v3].toSorted(), [0.61, 0.72], "both sightings were written, one after the other");
    const stored = await adapter.storage.events.get(EVENT_ID);
    assert.equal(stored?.version, 3);
    assert.equal(stored?.event.currentOutcomePrices[YES], v3, "the last writer's prices are stored");
  },
);

adapterTest("an instance with a stale cached event never answers unchanged from it", async (adapter) => {
  const clock = new ManualClock(MARKET_NOW_MS);
  const a = instance(adapter.storage.events, clock);
  const b = instance((await adapter.openAnother()).events, clock);
  await a.observe(priced(0.5));
  await b.get();
  clock.advance(1_000);
  assert.deepEqual(await a.observe(priced(0.6)), { outcome: "updated" });
  assert.deepEqual(
    await b.observe(priced(0.5)),
    { outcome: "updated" },
    "b compares with storage, not its cache",
  );
  assert.equal((await adapter.storage.events.get(EVENT_ID))?.event.currentOutcomePrices[YES], 0.5);
});

adapterTest("an instance whose cached event is stale reloads it and writes on top", async (adapter) => {
  const clock = new ManualClock(MARKET_NOW_MS);
  const a = instance(adapter.storage.events, clock);
  const b = instance((await adapter.openAnother()).events, clock);
  await a.observe(priced(0.5));
  await b.get();
  clock.advance(1_000);
  assert.deepEqual(await a.observe(priced(0.61)), { outcome: "updated" });
  clock.advance(1_000);
  assert.deepEqual(await b.observe(priced(0.72)), { outcome: "updated" });
  const stored = await adapter.storage.events.get(EVENT_ID);
  assert.equal(stored?.version, 3);
  assert.deepEqual(stored?.event.currentOutcomePrices, { [YES]: 0.72, [NO]: 0.28 });
  assert.equal(stored?.event.admittedAt, isoAt(MARKET_NOW_MS), "the admission from a is kept");
  clock.advance(1_000);
  assert.deepEqual(await a.observe(priced(0.72)), { outcome: "unchanged" }, "a reloads b's write");
  assert.equal((await adapter.storage.events.get(EVENT_ID))?.version, 3);
});

adapterTest(
  "an event that keeps changing under other writers answers 409 conflict, not a plain error",
  async ({ storage }) => {
    const clock = new ManualClock(MARKET_NOW_MS);
    await instance(storage.events, clock).observe(priced(0.5));
    // Another writer gets in before every write of this instance.
    const contended: EventStore = {
      ...recording(storage.events).store,
      put: async (event, _expectedVersion, nowMs) => {
        const current = (await storage.events.get(event.id))!;
        await storage.events.put(current.event, current.version, nowMs); // bumps the version
        return null;
      },
    };
    clock.advance(1_000);
    await assert.rejects(instance(contended, clock).observe(priced(0.7)), (error) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.code, "conflict");
      assert.match(error.message, /^Cannot write event polymarket-612345: it kept changing/);
      return true;
    });
  },
);
