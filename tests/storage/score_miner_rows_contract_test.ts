import assert from "node:assert/strict";
import { adapterTest } from "../support/adapters.ts";
import { eventAt, grant, HOUR, put, rowOf, T0 } from "../support/scored_rows.ts";

adapterTest(
  "a miner's rows: its counted rows in the window (start exclusive, end inclusive), newest first, then event id, then uid",
  async ({ storage }) => {
    const fence = await grant(storage.jobLeases);
    const store = storage.scores;
    const x = eventAt("x", T0 - 2 * HOUR);
    const b = eventAt("b", T0 - HOUR);
    const a = eventAt("a", T0 - HOUR);
    const z = eventAt("z", T0);
    const y = eventAt("y", T0 + 1);
    for (const event of [x, b, a, z, y]) {
      const id = event.eventId;
      await put(store, fence, event, [
        rowOf(event, `${id}-2`, { hotkey: "hk-a", uid: 2 }),
        rowOf(event, `${id}-1`, { hotkey: "hk-a", uid: 1 }),
        rowOf(event, `${id}-0`, { hotkey: "hk-a", uid: 1, counted: false }),
        { ...rowOf(event, `${id}-3`, { hotkey: "hk-b", uid: 1 }), brier: null, reasons: ["late_prediction"] },
      ]);
    }
    const window = { resolvedAfterMs: T0 - 2 * HOUR, resolvedUntilMs: T0 };
    const anyUid = await store.minerRows({ hotkey: "hk-a" }, window);
    assert.deepEqual(anyUid.map((row) => row.agentPredictionId), ["z-1", "z-2", "a-1", "a-2", "b-1", "b-2"]);
    assert.deepEqual(anyUid[0], rowOf(z, "z-1", { hotkey: "hk-a", uid: 1 }));
    const oneUid = await store.minerRows({ hotkey: "hk-a", uid: 2 }, window);
    assert.deepEqual(oneUid.map((row) => row.agentPredictionId), ["z-2", "a-2", "b-2"]);
    const invalid = await store.minerRows({ hotkey: "hk-b" }, {
      resolvedAfterMs: 0,
      resolvedUntilMs: T0 + 1,
    });
    assert.deepEqual(invalid.map((row) => [row.agentPredictionId, row.brier]), [
      ["y-3", null],
      ["z-3", null],
      ["a-3", null],
      ["b-3", null],
      ["x-3", null],
    ]);
    assert.deepEqual(await store.minerRows({ hotkey: "hk-c" }, window), []);
    assert.deepEqual(await store.minerRows({ hotkey: "hk-a", uid: 3 }, window), []);
  },
);

adapterTest(
  "a miner's rows follow a rescoring: a row no longer counted or moved in time",
  async ({ storage }) => {
    const fence = await grant(storage.jobLeases);
    const store = storage.scores;
    const event = eventAt("e1", T0);
    await put(store, fence, event, [rowOf(event, "ap-1", { hotkey: "hk-a", uid: 1 })]);
    const window = { resolvedAfterMs: T0 - HOUR, resolvedUntilMs: T0 };
    assert.equal((await store.minerRows({ hotkey: "hk-a" }, window)).length, 1);
    await put(store, fence, event, [
      rowOf(event, "ap-1", { hotkey: "hk-a", uid: 1, counted: false }),
      rowOf(event, "ap-2", { hotkey: "hk-b", uid: 2 }),
    ]);
    assert.deepEqual(await store.minerRows({ hotkey: "hk-a" }, window), []);
    const later = eventAt("e1", T0 + HOUR);
    await put(store, fence, later, [rowOf(later, "ap-2", { hotkey: "hk-b", uid: 2 })]);
    assert.deepEqual(await store.minerRows({ hotkey: "hk-b" }, window), []);
    assert.deepEqual(
      (await store.minerRows({ hotkey: "hk-b" }, { ...window, resolvedUntilMs: T0 + HOUR })).map((row) =>
        row.resolvedAtMs
      ),
      [T0 + HOUR],
    );
  },
);
