import assert from "node:assert/strict";
import type { ScoredPredictionRecord } from "../../storage/score_store.ts";
import { adapterTest } from "../support/adapters.ts";
import { eventAt, grant, HOUR, put, rowOf, T0, windowRowOf } from "../support/scored_rows.ts";

adapterTest(
  "the window's counted rows: start exclusive, end inclusive, by resolution then event id, in pages of events",
  async ({ storage }) => {
    const fence = await grant(storage.jobLeases);
    const store = storage.scores;
    const events = [
      eventAt("x", T0 - 2 * HOUR),
      eventAt("b", T0 - HOUR),
      eventAt("a", T0 - HOUR),
      eventAt("c", T0 - HOUR),
      eventAt("z", T0),
      eventAt("y", T0 + 1),
    ];
    const stored = new Map<string, ScoredPredictionRecord[]>();
    for (const event of events) {
      const id = event.eventId;
      const rows = id === "c" ? [] : [
        rowOf(event, `${id}-2`, { hotkey: "hk-a", uid: 1 }),
        rowOf(event, `${id}-1`, { hotkey: "hk-a", uid: 2 }),
        rowOf(event, `${id}-0`, { hotkey: "hk-a", uid: 1, counted: false }),
        { ...rowOf(event, `${id}-3`, { hotkey: "hk-b", uid: 1 }), brier: null, pPredicted: null },
      ];
      stored.set(id, rows);
      await put(store, fence, event, rows);
    }
    const counted = (id: string) =>
      stored.get(id)!.filter((row) => row.counted).toSorted((a, b) =>
        a.agentPredictionId < b.agentPredictionId ? -1 : 1
      ).map(windowRowOf);
    const window = { resolvedAfterMs: T0 - 2 * HOUR, resolvedUntilMs: T0 };
    assert.deepEqual(await store.windowRows({ ...window, events: 10 }), {
      rows: [...counted("a"), ...counted("b"), ...counted("z")],
      next: null,
    });
    // Pages of two events; "c" (no rows) still takes its place.
    const first = await store.windowRows({ ...window, events: 2 });
    assert.deepEqual(first, {
      rows: [...counted("a"), ...counted("b")],
      next: { resolvedAtMs: T0 - HOUR, eventId: "b" },
    });
    const second = await store.windowRows({ ...window, events: 2, after: first.next! });
    assert.deepEqual(second, { rows: counted("z"), next: { resolvedAtMs: T0, eventId: "z" } });
    assert.deepEqual(await store.windowRows({ ...window, events: 2, after: second.next! }), {
      rows: [],
      next: null,
    });
    const all = await store.windowRows({ resolvedAfterMs: 0, resolvedUntilMs: T0 + 1, events: 10 });
    assert.deepEqual(all.rows.map((row) => row.eventId), [
      "x",
      "x",
      "x",
      "a",
      "a",
      "a",
      "b",
      "b",
      "b",
      "z",
      "z",
      "z",
      "y",
      "y",
      "y",
    ]);
  },
);
