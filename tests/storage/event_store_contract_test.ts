import assert from "node:assert/strict";
import type { StoredEvent } from "../../storage/event_record.ts";
import type { EventStore } from "../../storage/event_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { eventRecord } from "../support/events.ts";

const T0 = Date.UTC(2026, 10, 20, 12);

function ids(page: StoredEvent[]): string[] {
  return page.map((stored) => stored.event.id);
}

/** Walks the whole change feed in pages of `limit`, from the start. */
async function readFeed(events: EventStore, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let after = null;
  for (;;) {
    const page = await events.listChanged(after, limit);
    assert.ok(page.length <= limit);
    seen.push(...ids(page));
    if (page.length < limit) return seen;
    const last = page.at(-1)!;
    after = { updatedAtMs: last.updatedAtMs, id: last.event.id };
  }
}

adapterTest("put with expected version 0 creates the event, and get returns it", async ({ storage }) => {
  const event = eventRecord("polymarket-1", T0);
  const written = await storage.events.put(event, 0, T0);
  assert.deepEqual(written, { event, version: 1, updatedAtMs: T0 });
  assert.deepEqual(await storage.events.get("polymarket-1"), { event, version: 1, updatedAtMs: T0 });
  assert.equal(await storage.events.get("polymarket-2"), null);
});

adapterTest("put on the current version writes the next version", async ({ storage }) => {
  const event = eventRecord("polymarket-1", T0);
  await storage.events.put(event, 0, T0);
  const changed = { ...event, currentOutcomePrices: { "polymarket-1-yes": 0.7, "polymarket-1-no": 0.3 } };
  assert.deepEqual(await storage.events.put(changed, 1, T0 + 5), {
    event: changed,
    version: 2,
    updatedAtMs: T0 + 5,
  });
  assert.deepEqual(await storage.events.get("polymarket-1"), {
    event: changed,
    version: 2,
    updatedAtMs: T0 + 5,
  });
});

adapterTest("put with a stale or unknown version returns null and changes nothing", async ({ storage }) => {
  const event = eventRecord("polymarket-1", T0);
  await storage.events.put(event, 0, T0);
  const second = { ...event, question: "Second version?" };
  await storage.events.put(second, 1, T0 + 1);
  const before = await storage.events.listChanged(null, 10);
  assert.equal(await storage.events.put({ ...event, question: "Stale?" }, 1, T0 + 2), null);
  assert.equal(await storage.events.put({ ...event, question: "Future?" }, 7, T0 + 2), null);
  assert.deepEqual(await storage.events.get("polymarket-1"), {
    event: second,
    version: 2,
    updatedAtMs: T0 + 1,
  });
  assert.deepEqual(await storage.events.listChanged(null, 10), before);
  assert.equal(await storage.events.count(), 1);
  assert.equal(await storage.events.put(eventRecord("polymarket-9", T0), 1, T0), null, "no event to update");
  assert.equal(await storage.events.get("polymarket-9"), null);
});

adapterTest("creating an event that exists returns null and keeps the first one", async ({ storage }) => {
  const first = eventRecord("polymarket-1", T0);
  await storage.events.put(first, 0, T0);
  assert.equal(await storage.events.put({ ...first, question: "Again?" }, 0, T0 + 1), null);
  assert.deepEqual(await storage.events.get("polymarket-1"), { event: first, version: 1, updatedAtMs: T0 });
  assert.equal(await storage.events.count(), 1);
});

adapterTest(
  "listChanged orders by write time then id, with an exclusive cursor and a limit",
  async ({ storage }) => {
    const writes: Array<[string, number]> = [
      ["polymarket-b", T0 + 20],
      ["polymarket-a", T0 + 20],
      ["polymarket-c", T0 + 10],
      ["polymarket-aa", T0 + 20],
      ["polymarket-z", T0],
      ["polymarket-d", T0 + 30],
    ];
    for (const [id, at] of writes) await storage.events.put(eventRecord(id, T0), 0, at);
    const order = [
      "polymarket-z",
      "polymarket-c",
      "polymarket-a",
      "polymarket-aa",
      "polymarket-b",
      "polymarket-d",
    ];
    const all = await storage.events.listChanged(null, 100);
    assert.deepEqual(ids(all), order);
    assert.deepEqual(all.map((stored) => stored.updatedAtMs), [
      T0,
      T0 + 10,
      T0 + 20,
      T0 + 20,
      T0 + 20,
      T0 + 30,
    ]);
    assert.deepEqual(ids(await storage.events.listChanged(null, 2)), order.slice(0, 2));
    assert.deepEqual(
      ids(await storage.events.listChanged({ updatedAtMs: T0 + 20, id: "polymarket-a" }, 2)),
      ["polymarket-aa", "polymarket-b"],
      "the cursor's own event is excluded",
    );
    assert.deepEqual(
      ids(await storage.events.listChanged({ updatedAtMs: T0 + 15, id: "" }, 100)),
      order.slice(2),
      "a cursor between writes starts at the next one",
    );
    assert.deepEqual(await storage.events.listChanged({ updatedAtMs: T0 + 30, id: "polymarket-d" }, 100), []);
    for (const limit of [1, 2, 4, 6]) {
      assert.deepEqual(
        await readFeed(storage.events, limit),
        order,
        `limit ${limit}`,
      );
    }
  },
);

adapterTest(
  "an update moves the event to the end of the feed, where it appears once",
  async ({ storage }) => {
    for (const [index, id] of ["polymarket-1", "polymarket-2", "polymarket-3"].entries()) {
      await storage.events.put(eventRecord(id, T0), 0, T0 + index);
    }
    const cursor = { updatedAtMs: T0 + 2, id: "polymarket-3" };
    await storage.events.put({ ...eventRecord("polymarket-1", T0), question: "Updated?" }, 1, T0 + 10);
    const feed = await storage.events.listChanged(null, 100);
    assert.deepEqual(ids(feed), ["polymarket-2", "polymarket-3", "polymarket-1"]);
    assert.deepEqual(feed.at(-1), {
      event: { ...eventRecord("polymarket-1", T0), question: "Updated?" },
      version: 2,
      updatedAtMs: T0 + 10,
    });
    assert.deepEqual(
      ids(await storage.events.listChanged(cursor, 100)),
      ["polymarket-1"],
      "a reader past it sees it again",
    );
    assert.equal(await storage.events.count(), 3);
  },
);

adapterTest("updates within one millisecond keep the event in the feed exactly once", async ({ storage }) => {
  const event = eventRecord("polymarket-1", T0);
  await storage.events.put(event, 0, T0);
  await storage.events.put({ ...event, question: "Second?" }, 1, T0);
  await storage.events.put({ ...event, question: "Third?" }, 2, T0);
  const feed = await storage.events.listChanged(null, 100);
  assert.deepEqual(feed, [{ event: { ...event, question: "Third?" }, version: 3, updatedAtMs: T0 }]);
});

adapterTest("count counts stored events, not writes", async ({ storage }) => {
  assert.equal(await storage.events.count(), 0);
  for (let index = 0; index < 5; index++) {
    await storage.events.put(eventRecord(`polymarket-${index}`, T0), 0, T0);
  }
  await storage.events.put({ ...eventRecord("polymarket-0", T0), question: "Again?" }, 1, T0 + 1);
  await storage.events.put(eventRecord("polymarket-0", T0), 0, T0 + 2);
  assert.equal(await storage.events.count(), 5);
});

adapterTest("two instances writing the same version at once: exactly one write wins", {
  needs: "concurrency",
}, async (adapter) => {
  const handles = [adapter.storage.events, (await adapter.openAnother()).events];
  const event = eventRecord("polymarket-1", T0);
  const creates = await Promise.all(
    Array.from(
      { length: 8 },
      (_, index) => handles[index % 2]!.put({ ...event, question: `Create ${index}?` }, 0, T0),
    ),
  );
  const created = creates.filter((written) => written !== null);
  assert.equal(created.length, 1, "one create wins");
  const updates = await Promise.all(
    Array.from(
      { length: 8 },
      (_, index) => handles[index % 2]!.put({ ...event, question: `Update ${index}?` }, 1, T0 + 1 + index),
    ),
  );
  const updated = updates.filter((written) => written !== null);
  assert.equal(updated.length, 1, "one update wins");
  assert.equal(updated[0]!.version, 2);
  assert.deepEqual(await handles[1]!.get("polymarket-1"), updated[0]);
  assert.deepEqual(await handles[0]!.listChanged(null, 10), [updated[0]]);
  assert.equal(await handles[0]!.count(), 1);
});

adapterTest(
  "retireSource retires the live events of one source: out of count, into the feed, idempotent",
  async (adapter) => {
    const { events } = adapter.storage;
    const sample = (id: string) => eventRecord(id, T0, { source: "snapshot" });
    await events.put(sample("snapshot-1"), 0, T0);
    await events.put(sample("snapshot-2"), 0, T0 + 1);
    await events.put(eventRecord("polymarket-1", T0), 0, T0 + 2);
    const other = (await adapter.openAnother()).events;
    assert.equal(await other.retireSource("snapshot", T0 + 10), 2, "another handle sees and retires them");
    assert.equal(await events.count(), 1, "only the live event is counted");
    const retired = { event: sample("snapshot-1"), version: 2, updatedAtMs: T0 + 10, retired: true };
    assert.deepEqual(await events.get("snapshot-1"), retired);
    const feed = await events.listChanged({ updatedAtMs: T0 + 2, id: "polymarket-1" }, 10);
    assert.deepEqual(feed, [retired, { ...retired, event: sample("snapshot-2") }], "retirements are changes");
    assert.equal(await events.retireSource("snapshot", T0 + 20), 0, "retiring again finds none");
    assert.equal(await events.retireSource("polymarket-nothing", T0 + 20), 0);
    assert.deepEqual(await events.get("snapshot-1"), retired, "and writes nothing");
    assert.deepEqual(await events.get("polymarket-1"), {
      event: eventRecord("polymarket-1", T0),
      version: 1,
      updatedAtMs: T0 + 2,
    });
  },
);

adapterTest(
  "a retired event comes back live with a put on its version, and can be retired again",
  async ({ storage }) => {
    const { events } = storage;
    const event = eventRecord("snapshot-1", T0, { source: "snapshot" });
    await events.put(event, 0, T0);
    await events.retireSource("snapshot", T0 + 1);
    assert.equal(
      await events.put({ ...event, question: "Stale?" }, 1, T0 + 2),
      null,
      "a write from before loses",
    );
    assert.equal(await events.put(event, 0, T0 + 2), null, "it still exists");
    assert.deepEqual(await events.put(event, 2, T0 + 3), { event, version: 3, updatedAtMs: T0 + 3 });
    assert.deepEqual(await events.get("snapshot-1"), { event, version: 3, updatedAtMs: T0 + 3 });
    assert.equal(await events.count(), 1);
    assert.equal(await events.retireSource("snapshot", T0 + 4), 1);
    assert.equal(await events.count(), 0);
    assert.deepEqual(await events.listChanged(null, 10), [{
      event,
      version: 4,
      updatedAtMs: T0 + 4,
      retired: true,
    }]);
  },
);

Deno.test("KV: events stored before the source index existed are still found and retired", async () => {
  const dir = await Deno.makeTempDir({ prefix: "fgw_kv_" });
  try {
    // What the previous KV layout wrote for one event: the event, its feed copy and the count.
    const kv = await Deno.openKv(`${dir}/store.sqlite`);
    const old = { event: eventRecord("snapshot-1", T0, { source: "snapshot" }), version: 1, updatedAtMs: T0 };
    await kv.atomic().set(["event", "snapshot-1"], old).set(["event_changed", T0, "snapshot-1"], old)
      .sum(["meta", "event_count"], 1n).commit();
    kv.close();
    const { openKvStorage } = await import("../../storage/kv/kv_storage.ts");
    const storage = await openKvStorage(`${dir}/store.sqlite`);
    assert.equal(await storage.events.retireSource("snapshot", T0 + 1), 1);
    assert.equal(await storage.events.count(), 0);
    assert.equal((await storage.events.get("snapshot-1"))?.retired, true);
    await storage.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
