/**
 * The `CompletionDesk`'s early hold without HTTP: reserved from the body before the call, taken
 * over by the call of the same amount, released when no call takes it, never asked twice.
 */
import assert from "node:assert/strict";
import type { AskOrg } from "../../actors/billing/mod.ts";
import { EARLY_MAX_BYTES, type EarlyBody } from "../../actors/gateway/mod.ts";
import { assertAccount, CALL, code, deskOf, HOLD, ORG, payer, type World, world } from "./billing_world.ts";

/** The world's OrgActors, each reserve asked of them counted. */
function countingReserves(w: World): { askOrg: AskOrg; reserves(): number } {
  let reserves = 0;
  const askOrg: AskOrg = (orgId, message, options) => {
    if (message.type === "reserve") reserves++;
    return w.ask(orgId, message, options);
  };
  return { askOrg, reserves: () => reserves };
}

/** A body of `bytes` declared bytes that reads as `call`. */
function body(call: typeof CALL | null, bytes = 200): EarlyBody {
  return { bytes, read: () => Promise.resolve(call) };
}

Deno.test("an early hold taken over by its call is the call's one hold: reserved once, settled once", async () => {
  await using w = await world(1_000n);
  const counted = countingReserves(w);
  const desk = deskOf(w, { askOrg: counted.askOrg });
  const early = desk.holdEarly({ orgId: ORG }, { requestId: "req_early", body: body(CALL) });
  assert.ok(early);
  const result = await desk.complete(CALL, { ...payer("req_early"), early });
  await early.undo();
  assert.equal(counted.reserves(), 1);
  await assertAccount(w, 1_000n - result.costMicro);
});

Deno.test("an early hold no call takes over is released: nothing held, nothing charged", async () => {
  await using w = await world(1_000n);
  const counted = countingReserves(w);
  const early = deskOf(w, { askOrg: counted.askOrg }).holdEarly({ orgId: ORG }, {
    requestId: "req_refused",
    body: body(CALL),
  });
  await new Promise((resolve) => setTimeout(resolve, 0)); // the key's check: the reserve is asked meanwhile
  await early?.undo();
  assert.equal(counted.reserves(), 1);
  await assertAccount(w, 1_000n);
});

Deno.test("a request answered before its body is read asks no early hold", async () => {
  await using w = await world(1_000n);
  const counted = countingReserves(w);
  const arriving = Promise.withResolvers<typeof CALL>();
  const early = deskOf(w, { askOrg: counted.askOrg }).holdEarly({ orgId: ORG }, {
    requestId: "req_slow_body",
    body: { bytes: 200, read: () => arriving.promise },
  });
  await early?.undo();
  arriving.resolve(CALL);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(counted.reserves(), 0);
  await assertAccount(w, 1_000n);
});

Deno.test("an early hold the org refuses is answered by its call without asking again", async () => {
  await using w = await world(HOLD - 1n);
  const counted = countingReserves(w);
  const desk = deskOf(w, { askOrg: counted.askOrg });
  const early = desk.holdEarly({ orgId: ORG }, { requestId: "req_poor", body: body(CALL) }) ?? undefined;
  await assert.rejects(desk.complete(CALL, { ...payer("req_poor"), early }), code("insufficient_credits"));
  await early?.undo();
  assert.equal(counted.reserves(), 1);
  assert.equal(w.fake.requests.length, 0);
  await assertAccount(w, HOLD - 1n);
});

Deno.test("no early hold for a body over 64 KiB, nor a reserve for a body the route refuses", async () => {
  await using w = await world(1_000n);
  const counted = countingReserves(w);
  const desk = deskOf(w, { askOrg: counted.askOrg });
  assert.equal(
    desk.holdEarly({ orgId: ORG }, { requestId: "req_big", body: body(CALL, EARLY_MAX_BYTES + 1) }),
    null,
  );
  for (const call of [null, { ...CALL, model: "no-such-model" }, { ...CALL, maxTokens: 1_001 }]) {
    const early = desk.holdEarly({ orgId: ORG }, { requestId: "req_bad", body: body(call) });
    await early?.undo();
  }
  assert.equal(counted.reserves(), 0);
  await assertAccount(w, 1_000n);
});
