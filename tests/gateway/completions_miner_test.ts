import assert from "node:assert/strict";
import { adminInit, createOrg, errorCode, HOTKEY_A, HOTKEY_B, issueKey } from "../support/access.ts";
import { ECHO_CALL, gatewayWorld, registerMiner, usageOf } from "./gateway_service.ts";

/** The miner hotkey of the newest usage record. */
async function lastMiner(w: Awaited<ReturnType<typeof gatewayWorld>>): Promise<unknown> {
  return (await usageOf(w.service.request, w.orgId))[0]?.minerHotkey;
}

Deno.test("a call is attributed to the body's miner, else the org's default miner, else none", async () => {
  await using w = await gatewayWorld();
  assert.equal((await w.complete(ECHO_CALL)).status, 200);
  assert.equal(await lastMiner(w), null, "no miner to attribute to");
  await registerMiner(w.service.request, w.orgId, HOTKEY_A);
  await registerMiner(w.service.request, w.orgId, HOTKEY_B, { default: true });
  assert.equal((await w.complete(ECHO_CALL)).status, 200);
  assert.equal(await lastMiner(w), HOTKEY_B, "the org's default");
  assert.equal((await w.complete({ ...ECHO_CALL, minerHotkey: HOTKEY_A })).status, 200);
  assert.equal(await lastMiner(w), HOTKEY_A, "the body's miner wins");
});

Deno.test("a body miner not registered to the key's org is 403 miner_not_registered, before any hold", async () => {
  await using w = await gatewayWorld();
  const other = await createOrg(w.service.request, "Other");
  await registerMiner(w.service.request, other, HOTKEY_A);
  for (const minerHotkey of [HOTKEY_A, HOTKEY_B]) {
    const response = await w.complete({ ...ECHO_CALL, minerHotkey });
    assert.equal(response.status, 403);
    const body = await response.json();
    assert.equal(body.error.code, "miner_not_registered");
    assert.equal(body.error.details.minerHotkey, minerHotkey);
  }
  assert.deepEqual(await usageOf(w.service.request, w.orgId), []);
  assert.equal(await w.balance(), "1000000");
});

Deno.test("the key's pinned miner comes before the org's default, and is re-checked at every call", async () => {
  await using w = await gatewayWorld();
  await registerMiner(w.service.request, w.orgId, HOTKEY_A);
  await registerMiner(w.service.request, w.orgId, HOTKEY_B, { default: true });
  const pinned = await issueKey(w.service.request, w.orgId, {
    scopes: ["gateway:write"],
    rateLimitRpm: 100,
    pinnedMinerHotkey: HOTKEY_A,
  });
  assert.equal((await w.complete(ECHO_CALL, { apiKey: pinned.apiKey })).status, 200);
  assert.equal(await lastMiner(w), HOTKEY_A);
  assert.equal(
    (await w.complete({ ...ECHO_CALL, minerHotkey: HOTKEY_B }, { apiKey: pinned.apiKey })).status,
    200,
  );
  assert.equal(await lastMiner(w), HOTKEY_B, "the body's miner overrides the pin");
  // The pinned miner moves to another organisation: the key may no longer bill calls to it.
  const removed = await w.service.request(
    `/admin/v1/orgs/${w.orgId}/miners/${HOTKEY_A}`,
    adminInit("DELETE"),
  );
  assert.equal(removed.status, 200, await removed.text());
  const refusedUnregistered = await w.complete(ECHO_CALL, { apiKey: pinned.apiKey });
  assert.equal(refusedUnregistered.status, 403);
  assert.equal(await errorCode(refusedUnregistered), "miner_not_registered");
  const other = await createOrg(w.service.request, "Other");
  await registerMiner(w.service.request, other, HOTKEY_A);
  const refusedMoved = await w.complete(ECHO_CALL, { apiKey: pinned.apiKey });
  assert.equal(refusedMoved.status, 403);
  assert.match((await refusedMoved.json()).error.message, /pinned miner/);
  assert.equal((await usageOf(w.service.request, w.orgId)).length, 2);
  assert.equal((await usageOf(w.service.request, other)).length, 0);
});
