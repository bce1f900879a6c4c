import assert from "node:assert/strict";
import { CallSlots } from "../../../scripts/validate/relay/call_slots.ts";

Deno.test("call slots: the holders beyond the limit wait, and get their slots in arrival order", async () => {
  const slots = new CallSlots(2);
  const signal = new AbortController().signal;
  const first = await slots.take(signal);
  const second = await slots.take(signal);
  const order: string[] = [];
  const third = slots.take(signal).then((give) => (order.push("third"), give));
  const fourth = slots.take(signal).then((give) => (order.push("fourth"), give));
  assert.equal(slots.held, 2);
  first();
  first(); // giving back twice gives one slot
  (await third)();
  second();
  (await fourth)();
  assert.deepEqual(order, ["third", "fourth"]);
  assert.equal(slots.held, 0);
});

Deno.test("call slots: a waiter whose signal aborts leaves the queue, the next one gets the slot", async () => {
  const slots = new CallSlots(1);
  const held = await slots.take(new AbortController().signal);
  const leaving = new AbortController();
  const left = slots.take(leaving.signal);
  const next = slots.take(new AbortController().signal);
  leaving.abort(new Error("run ended"));
  await assert.rejects(left, /run ended/);
  held();
  (await next)();
  assert.equal(slots.held, 0);
  await assert.rejects(slots.take(leaving.signal), /run ended/);
});
