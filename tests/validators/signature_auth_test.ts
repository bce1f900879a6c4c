import assert from "node:assert/strict";
import { errorCode, overriding } from "../support/access.ts";
import { refusedConnectionError } from "../support/storage_outage.ts";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { openTestService } from "../support/test_service.ts";
import type { NonceStore } from "../../storage/nonce_store.ts";
import type { AssignmentStore } from "../../storage/assignment_store.ts";
import {
  LEASE,
  loopNeuron,
  openLoop,
  signedInit,
  testSigner,
  VALIDATOR_STAKE_RAO,
} from "../support/validator_loop.ts";

const VALIDATOR = testSigner("validator-0");
const NO_PERMIT = testSigner("validator-no-permit");
const LOW_STAKE = testSigner("validator-low-stake");
const STRANGER = testSigner("not-in-metagraph");
const MINER = testSigner("miner-0");
const NONCE = "nonce-0123456789abcdef";

type Loop = Awaited<ReturnType<typeof openLoop>>;

/** A loop whose metagraph also holds a hotkey without permit and one with a permit but 1 rao of stake. */
async function openOrderLoop(env: Record<string, string> = {}): Promise<Loop> {
  const loop = await openLoop({
    validators: [VALIDATOR],
    miners: [MINER],
    events: 3,
    env: { FGW_VALIDATOR_MIN_STAKE_RAO: String(VALIDATOR_STAKE_RAO), ...env },
  });
  loop.source.current = {
    ...loop.source.current,
    neurons: [
      ...loop.source.current.neurons,
      loopNeuron(10, NO_PERMIT.hotkey, { stakeRao: VALIDATOR_STAKE_RAO }),
      loopNeuron(11, LOW_STAKE.hotkey, { validatorPermit: true, stakeRao: VALIDATOR_STAKE_RAO - 1n }),
    ],
  };
  loop.service.clock.advance(1); // a later sync: the view reloads when the sync time changes
  await loop.sync();
  return loop;
}

/** Sends a lease request as `init` says and returns status, code and the Retry-After header. */
async function attempt(loop: Loop, init: RequestInit) {
  const response = await loop.service.request(LEASE, init);
  const retryAfter = response.headers.get("retry-after");
  if (response.status === 200) {
    await response.body?.cancel();
    return { status: 200, code: "ok", retryAfter };
  }
  return { status: response.status, code: await errorCode(response), retryAfter };
}

/** Signed headers with the signature's last byte flipped (still well formed). */
function badSignature(init: RequestInit): RequestInit {
  const headers = { ...init.headers as Record<string, string> };
  const signature = headers["x-validator-signature"]!;
  headers["x-validator-signature"] = signature.slice(0, -2) + (signature.endsWith("00") ? "01" : "00");
  return { ...init, headers };
}

function lease(
  loop: Loop,
  signer = VALIDATOR,
  options: { nonce?: string; skewMs?: number } = {},
): RequestInit {
  const nowMs = loop.service.clock.now() + (options.skewMs ?? 0);
  return signedInit(signer, "GET", LEASE, { nowMs, ...(options.nonce ? { nonce: options.nonce } : {}) });
}

Deno.test("docs/signatures.md order: each check answers only when every earlier one passed", async (t) => {
  const loop = await openOrderLoop();
  await using _service = loop.service;

  await t.step("1. a missing header is 401 unauthenticated, before the window", async () => {
    const headers = { ...lease(loop, STRANGER, { skewMs: -3_600_000 }).headers as Record<string, string> };
    delete headers["x-validator-nonce"];
    assert.deepEqual(await attempt(loop, { headers }), {
      status: 401,
      code: "unauthenticated",
      retryAfter: null,
    });
  });
  await t.step("1. a malformed header is 400 invalid_request, before the window", async () => {
    const headers = { ...lease(loop, STRANGER, { skewMs: -3_600_000 }).headers as Record<string, string> };
    headers["x-validator-nonce"] = "short";
    assert.equal((await attempt(loop, { headers })).code, "invalid_request");
  });
  await t.step("2. a timestamp out of the window is 401, before the metagraph's hotkey check", async () => {
    const result = await attempt(loop, badSignature(lease(loop, STRANGER, { skewMs: 30_001 })));
    assert.deepEqual(result, { status: 401, code: "timestamp_out_of_window", retryAfter: null });
    assert.equal(
      (await attempt(loop, lease(loop, VALIDATOR, { skewMs: -30_000 }))).status,
      200,
      "the edge is in",
    );
  });
  await t.step("4. a hotkey not in the metagraph is 403, before the signature", async () => {
    const result = await attempt(loop, badSignature(lease(loop, STRANGER)));
    assert.deepEqual(result, { status: 403, code: "hotkey_not_in_metagraph", retryAfter: null });
  });
  await t.step(
    "5. no permit, or stake below the minimum, is 403 validator_permit_required, before the signature",
    async () => {
      assert.equal(
        (await attempt(loop, badSignature(lease(loop, NO_PERMIT)))).code,
        "validator_permit_required",
      );
      assert.equal(
        (await attempt(loop, badSignature(lease(loop, LOW_STAKE)))).code,
        "validator_permit_required",
      );
    },
  );
  await t.step("6. a bad signature is 401 invalid_signature and does not use its nonce up", async () => {
    const nonce = "order-nonce-0000000001";
    assert.equal(
      (await attempt(loop, badSignature(lease(loop, VALIDATOR, { nonce })))).code,
      "invalid_signature",
    );
    assert.equal(
      (await attempt(loop, lease(loop, VALIDATOR, { nonce }))).status,
      200,
      "the nonce was still unused",
    );
  });
  await t.step("7. a reused nonce is 401 nonce_reused (the signature is checked first)", async () => {
    assert.equal((await attempt(loop, lease(loop, VALIDATOR, { nonce: NONCE }))).status, 200);
    assert.equal((await attempt(loop, lease(loop, VALIDATOR, { nonce: NONCE }))).code, "nonce_reused");
    assert.equal(
      (await attempt(loop, badSignature(lease(loop, VALIDATOR, { nonce: NONCE })))).code,
      "invalid_signature",
    );
  });
});

Deno.test("3. a stale metagraph is 503 metagraph_unavailable with Retry-After, before the hotkey check", async () => {
  const loop = await openOrderLoop();
  await using _service = loop.service;
  loop.service.clock.advance(3 * 300_000 + 1);
  assert.deepEqual(await attempt(loop, badSignature(lease(loop, STRANGER))), {
    status: 503,
    code: "metagraph_unavailable",
    retryAfter: "60",
  });
});

Deno.test("3. a metagraph never synced is 503 on the lease route", async () => {
  await using service = await openTestService({ clock: new ManualClock(Date.now()) });
  const init = signedInit(VALIDATOR, "GET", LEASE, { nowMs: service.clock.now() });
  const response = await service.request(LEASE, init);
  assert.equal(response.status, 503);
  assert.equal(await errorCode(response), "metagraph_unavailable");
});

Deno.test("8. over FGW_VALIDATOR_RPM signed requests a minute: 429 rate_limited with Retry-After (a replay is refused first)", async () => {
  const loop = await openOrderLoop({ FGW_VALIDATOR_RPM: "2" });
  await using _service = loop.service;
  assert.equal((await attempt(loop, lease(loop, VALIDATOR, { nonce: NONCE }))).status, 200);
  assert.equal((await attempt(loop, lease(loop))).status, 200);
  const over = await attempt(loop, lease(loop));
  assert.equal(over.status, 429);
  assert.equal(over.code, "rate_limited");
  assert.ok(Number(over.retryAfter) >= 1 && Number(over.retryAfter) <= 60);
  assert.equal((await attempt(loop, lease(loop, VALIDATOR, { nonce: NONCE }))).code, "nonce_reused");
});

Deno.test("a validator at FGW_VALIDATOR_MAX_LEASES live leases gets 429 with Retry-After", async () => {
  const loop = await openOrderLoop({ FGW_VALIDATOR_MAX_LEASES: "2" });
  await using _service = loop.service;
  assert.equal((await attempt(loop, lease(loop))).status, 200);
  assert.equal((await attempt(loop, lease(loop))).status, 200);
  assert.deepEqual(await attempt(loop, lease(loop)), { status: 429, code: "rate_limited", retryAfter: "10" });
});

Deno.test("an API key on a signature route, or signature headers on a key route, is 403 wrong_auth_scheme", async () => {
  const loop = await openOrderLoop();
  await using _service = loop.service;
  const signed = lease(loop);
  const withKey = {
    headers: { ...signed.headers as Record<string, string>, authorization: "Bearer fgw_x_y" },
  };
  assert.deepEqual(await attempt(loop, withKey), {
    status: 403,
    code: "wrong_auth_scheme",
    retryAfter: null,
  });
  const onKeyRoute = await loop.service.request("/v1/credits/balance", lease(loop));
  assert.equal(onKeyRoute.status, 403);
  assert.equal(await errorCode(onKeyRoute), "wrong_auth_scheme");
});

/** A lease attempted while the nonce and claim steps fail with `failure`; then with them back. */
async function leaseWhileFailing(failure: Error) {
  const storage = await openKvStorage(":memory:");
  let failing = false;
  const down = () => Promise.reject(failure);
  const nonces = overriding<NonceStore>(storage.nonces, {
    consume: (...args) => failing ? down() : storage.nonces.consume(...args),
    consumeCounting: (...args) => failing ? down() : storage.nonces.consumeCounting(...args),
  });
  // The lease's nonce step is made with its claim, in the same storage step.
  const assignments = overriding<AssignmentStore>(storage.assignments, {
    claim: (...args) => failing ? down() : storage.assignments.claim(...args),
  });
  const loop = await openLoop({
    validators: [VALIDATOR],
    miners: [MINER],
    events: 1,
    storage: { ...storage, nonces, assignments },
  });
  await using _service = loop.service;
  failing = true;
  const refused = await attempt(loop, lease(loop));
  const leased = await loop.service.storage.assignments.countLive(VALIDATOR.hotkey);
  failing = false;
  return { refused, leased, after: (await attempt(loop, lease(loop))).status };
}

Deno.test("a storage failure during the checks fails closed: 500 and nothing is leased", async () => {
  const { refused, leased, after } = await leaseWhileFailing(new Error("storage down"));
  assert.equal(refused.status, 500);
  assert.equal(refused.code, "internal_error");
  assert.equal(leased, 0);
  assert.equal(after, 200);
});

Deno.test("storage that cannot be reached during the checks fails closed: 503 with Retry-After", async () => {
  const { refused, leased, after } = await leaseWhileFailing(await refusedConnectionError());
  assert.equal(refused.status, 503);
  assert.equal(refused.code, "unavailable");
  assert.equal(refused.retryAfter, "2");
  assert.equal(leased, 0);
  assert.equal(after, 200);
});
