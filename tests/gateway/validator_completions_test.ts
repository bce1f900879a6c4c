import assert from "node:assert/strict";
import { utcDay } from "../../storage/billing_store.ts";
import { addCredits, errorCode } from "../support/access.ts";
import {
  leaseAs,
  type LeasedWork,
  type Loop,
  openLoop,
  registerMiner,
  signedInit,
  testSigner,
} from "../support/validator_loop.ts";
import { ECHO_CALL, ECHO_COST, ECHO_HOLD, usageOf } from "./gateway_service.ts";

const VALIDATOR = testSigner("validator-0");
const MINER = testSigner("miner-0");
const OFF_CHAIN = testSigner("miner-not-in-metagraph");
const UNREGISTERED = testSigner("miner-1");
const PATH = "/v1/gateway/validator/completions";

/**
 * A loop with one validator and `MINER` on the metagraph, registered to a funded org, and a lease
 * the validator holds on `MINER`'s agent (`work`).
 */
async function gatewayLoop(
  env: Record<string, string> = {},
  creditMicro = "1000",
): Promise<Loop & { work: LeasedWork }> {
  const loop = await openLoop({ validators: [VALIDATOR], miners: [MINER], events: 1, env });
  await addCredits(loop.service.request, loop.orgId, creditMicro, "miner-org-credit");
  return { ...loop, work: await leaseAs(loop.service, VALIDATOR) };
}

/** The echo call of the tests, naming the loop's lease. */
function leased(loop: { work: LeasedWork }, extra: Record<string, unknown> = {}) {
  return { ...ECHO_CALL, agentPredictionId: loop.work.agentPredictionId, ...extra };
}

/** A validator completion signed by `VALIDATOR` for `minerHotkey` (null: no header). */
function call(loop: Loop, body: unknown, minerHotkey: string | null = MINER.hotkey): Promise<Response> {
  const init = signedInit(VALIDATOR, "POST", PATH, {
    nowMs: loop.service.clock.now(),
    body: JSON.stringify(body),
    ...(minerHotkey === null ? {} : { minerHotkey }),
  });
  return loop.service.request(PATH, init);
}

Deno.test("a validator's completion is billed to the miner's org, names the validator and the lease, and counts against each cap", async () => {
  const loop = await gatewayLoop();
  await using _service = loop.service;
  const response = await call(loop, leased(loop));
  const body = await response.json();
  assert.equal(response.status, 200, JSON.stringify(body));
  assert.deepEqual(body, {
    provider: "echo",
    model: "echo-1",
    output: "Hello, gateway!",
    usage: { promptTokens: 4, completionTokens: 4, totalTokens: 8 },
    costMicro: String(ECHO_COST),
    providerCostMicro: String(ECHO_COST),
    markupBps: 0,
    balanceAfterMicro: String(1000n - ECHO_COST),
  });
  assert.equal(response.headers.get("x-service-credits-remaining"), String(1000n - ECHO_COST));
  const [usage] = await usageOf(loop.service.request, loop.orgId);
  assert.equal(usage?.minerHotkey, MINER.hotkey);
  assert.equal(usage?.keyId, null);
  assert.equal((usage?.metadata as Record<string, unknown>).validatorHotkey, VALIDATOR.hotkey);
  const day = utcDay(loop.service.clock.now());
  assert.equal(
    await loop.service.storage.billing.capSpent({ cap: "daily", minerHotkey: MINER.hotkey, day: day }),
    ECHO_COST,
  );
});

Deno.test("past the miner's daily cap a validator completion is 402 spend_cap_reached, and nothing is held", async () => {
  // The cap fits one hold (175) but not a second one on top of the first call's charge (8).
  const loop = await gatewayLoop({ FGW_VALIDATOR_DAILY_CAP_MICRO: String(ECHO_HOLD + 5n) });
  await using _service = loop.service;
  assert.equal((await call(loop, leased(loop))).status, 200);
  const refused = await call(loop, leased(loop));
  const body = await refused.json();
  assert.equal(refused.status, 402, JSON.stringify(body));
  assert.equal(body.error.code, "spend_cap_reached");
  assert.deepEqual(body.error.details, {
    cap: "daily",
    minerHotkey: MINER.hotkey,
    day: utcDay(loop.service.clock.now()),
    capMicro: String(ECHO_HOLD + 5n),
    spentMicro: String(ECHO_COST),
    requestedMicro: String(ECHO_HOLD),
  });
  const account = await loop.service.storage.billing.getAccount(loop.orgId);
  assert.deepEqual([account?.balanceMicro, account?.heldMicro], [1000n - ECHO_COST, 0n]);
  // A poorer org meets its own balance first when the cap is generous.
  const poor = await gatewayLoop({}, "100");
  await using _poor = poor.service;
  assert.equal(await errorCode(await call(poor, leased(poor))), "insufficient_credits");
});

Deno.test("the validator route takes the miner only from the signed header, and refuses miners it cannot bill", async () => {
  const loop = await gatewayLoop();
  await using _service = loop.service;
  const named = await call(loop, leased(loop, { minerHotkey: MINER.hotkey }));
  assert.equal(named.status, 400);
  assert.deepEqual((await named.json()).error.details.fields.map((f: { field: string }) => f.field), [
    "minerHotkey",
  ]);
  const headerless = await call(loop, leased(loop), null);
  assert.equal(headerless.status, 400);
  assert.equal((await headerless.json()).error.details.fields[0].field, "x-miner-hotkey");
  assert.equal(await errorCode(await call(loop, leased(loop), UNREGISTERED.hotkey)), "miner_not_registered");
  await registerMiner(loop.service.request, loop.orgId, OFF_CHAIN.hotkey);
  const offChain = await call(loop, leased(loop), OFF_CHAIN.hotkey);
  assert.equal(offChain.status, 403);
  assert.equal(await errorCode(offChain), "hotkey_not_in_metagraph");
  const keyed = await loop.service.request(PATH, {
    method: "POST",
    headers: { authorization: "Bearer fgw_x_y", "content-type": "application/json" },
    body: JSON.stringify(leased(loop)),
  });
  assert.equal(await errorCode(keyed), "wrong_auth_scheme");
  assert.deepEqual(await usageOf(loop.service.request, loop.orgId), []);
  assert.equal((await loop.service.storage.billing.getAccount(loop.orgId))?.balanceMicro, 1000n);
});

Deno.test("a signed validator completion body is strict, JSON and within FGW_GATEWAY_MAX_BODY_BYTES", async () => {
  const loop = await gatewayLoop({ FGW_GATEWAY_MAX_BODY_BYTES: "2048" });
  await using _service = loop.service;
  const extra = await call(loop, leased(loop, { stream: true }));
  assert.equal(extra.status, 400);
  assert.deepEqual((await extra.json()).error.details.fields.map((f: { field: string }) => f.field), [
    "stream",
  ]);
  const big = await call(loop, leased(loop, { messages: [{ role: "user", content: "x".repeat(2_100) }] }));
  assert.equal(big.status, 413);
  assert.equal(await errorCode(big), "payload_too_large");
  const init = signedInit(VALIDATOR, "POST", PATH, {
    nowMs: loop.service.clock.now(),
    body: JSON.stringify(leased(loop)),
    minerHotkey: MINER.hotkey,
  });
  const plain = await loop.service.request(PATH, {
    ...init,
    headers: { ...init.headers as Record<string, string>, "content-type": "text/plain" },
  });
  assert.equal(plain.status, 415);
  assert.equal(await errorCode(plain), "unsupported_media_type");
  assert.deepEqual(await usageOf(loop.service.request, loop.orgId), []);
});
