/**
 * The early hold of `POST /v1/gateway/completions` (actors/gateway/early_hold.ts): reserved while
 * the key is counted, taken over by the handler, released on every refusal, never asked twice.
 */
import assert from "node:assert/strict";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import type { AccountChange } from "../../storage/billing_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { adminInit, errorCode, issueKey, overriding } from "../support/access.ts";
import { ledgerSum } from "../support/ledger.ts";
import {
  completionInit,
  COMPLETIONS,
  ECHO_CALL,
  ECHO_COST,
  ECHO_HOLD,
  type GatewayWorld,
  gatewayWorld,
  type GatewayWorldOptions,
} from "./gateway_service.ts";

/** A KV storage whose billing commits are recorded (hold added, hold removed) in order. */
async function watchedStorage(): Promise<
  { storage: Storage; changes: AccountChange[]; close(): Promise<void> }
> {
  const kv = await openKvStorage(":memory:");
  const changes: AccountChange[] = [];
  const billing = overriding(kv.billing, {
    commit: (orgId, change) => {
      changes.push(change);
      return kv.billing.commit(orgId, change);
    },
    commitBatch: (orgId, batch) => {
      changes.push(...batch);
      return kv.billing.commitBatch(orgId, batch);
    },
  });
  return { storage: { ...kv, billing }, changes, close: () => kv.close() };
}

const reserves = (changes: AccountChange[]) => changes.filter((change) => change.addHold).length;

async function heldAndBalance(storage: Storage, orgId: string): Promise<[bigint, bigint]> {
  const account = await storage.billing.getAccount(orgId);
  assert.ok(account);
  assert.equal(account.balanceMicro, await ledgerSum(storage.billing, orgId));
  return [account.heldMicro, account.balanceMicro];
}

/** Runs `fn` on a gateway world over a watched KV storage, then closes both. */
async function withWatchedWorld(
  options: GatewayWorldOptions,
  fn: (w: GatewayWorld, changes: AccountChange[]) => Promise<void>,
): Promise<void> {
  const watched = await watchedStorage();
  const w = await gatewayWorld({ ...options, storage: watched.storage });
  try {
    await fn(w, watched.changes);
  } finally {
    await w[Symbol.asyncDispose]();
    await watched.close();
  }
}

/** One call that must answer 200: after it this instance remembers the key. */
async function succeeds(w: GatewayWorld): Promise<void> {
  const response = await w.complete(ECHO_CALL);
  assert.equal(response.status, 200, await response.clone().text());
  await response.body?.cancel();
}

/**
 * A world on in-memory KV whose next key count, once `gate(ms)` is called, first waits up to `ms`
 * for a hold to be reserved: only an early hold can end that wait sooner. The promise `gate`
 * returns says which came first.
 */
async function gatedWorld(options: GatewayWorldOptions): Promise<{
  w: GatewayWorld;
  gate(ms: number): Promise<"hold" | "timeout">;
  [Symbol.asyncDispose](): Promise<void>;
}> {
  const kv = await openKvStorage(":memory:");
  let armed:
    | { ms: number; hold: PromiseWithResolvers<void>; first: PromiseWithResolvers<"hold" | "timeout"> }
    | null = null;
  const billing = overriding(kv.billing, {
    commit: (orgId, change) => {
      if (change.addHold) armed?.hold.resolve();
      return kv.billing.commit(orgId, change);
    },
  });
  const keyUsage = overriding(kv.keyUsage, {
    count: async (keyId, use) => {
      const gate = armed;
      if (gate) {
        const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), gate.ms));
        gate.first.resolve(await Promise.race([gate.hold.promise.then(() => "hold" as const), timeout]));
        armed = null;
      }
      return await kv.keyUsage.count(keyId, use);
    },
  });
  const w = await gatewayWorld({ ...options, storage: { ...kv, billing, keyUsage } });
  return {
    w,
    gate: (ms) => {
      armed = { ms, hold: Promise.withResolvers(), first: Promise.withResolvers() };
      return armed.first.promise;
    },
    async [Symbol.asyncDispose]() {
      await w[Symbol.asyncDispose]();
      await kv.close();
    },
  };
}

Deno.test("a recognised key's hold is reserved while the key is counted, and the handler settles that hold", async () => {
  await using world = await gatedWorld({ creditMicro: "1000" });
  const { w } = world;
  await succeeds(w); // the first call authenticates the key: it is not recognised yet
  const first = world.gate(5_000);
  const second = await w.complete(ECHO_CALL);
  assert.equal(second.status, 200, await second.clone().text());
  assert.equal(await first, "hold", "the hold was reserved while the key was counted");
  assert.equal((await second.json()).balanceAfterMicro, String(1000n - 2n * ECHO_COST));
  assert.deepEqual(await heldAndBalance(w.service.storage, w.orgId), [0n, 1000n - 2n * ECHO_COST]);
});

Deno.test("an early hold is released when the key was revoked on another instance: 401, nothing held", async () => {
  await withWatchedWorld({ creditMicro: "1000" }, async (w, changes) => {
    await succeeds(w);
    const peer = await w.openPeer(w.service.storage);
    const revoked = await peer.request(`/admin/v1/keys/${w.keyId}/revoke`, adminInit("POST"));
    assert.equal(revoked.status, 200);
    await revoked.body?.cancel();
    const before = reserves(changes);
    const refused = await w.complete(ECHO_CALL);
    assert.equal(refused.status, 401);
    assert.equal(await errorCode(refused), "unauthenticated");
    assert.equal(
      reserves(changes) - before,
      1,
      "this instance still remembered the key: it held early",
    );
    assert.ok(changes.at(-1)?.removeHoldId, "and released that hold");
    assert.deepEqual(await heldAndBalance(w.service.storage, w.orgId), [0n, 1000n - ECHO_COST]);
  });
});

Deno.test("calls over the key's rate limit: the early hold of a 429 is released, and later ones hold nothing early", async () => {
  await withWatchedWorld({ creditMicro: "1000", key: { rateLimitRpm: 2 } }, async (w, changes) => {
    await succeeds(w);
    // Both recognised (one use of two counted so far): both hold early, one is over the limit.
    const pair = await Promise.all([w.complete(ECHO_CALL), w.complete(ECHO_CALL)]);
    assert.deepEqual(pair.map((r) => r.status).sort(), [200, 429]);
    await Promise.all(pair.map((r) => r.body?.cancel()));
    assert.deepEqual(await heldAndBalance(w.service.storage, w.orgId), [0n, 1000n - 2n * ECHO_COST]);
    const before = reserves(changes);
    const over = await w.complete(ECHO_CALL);
    assert.equal(over.status, 429);
    await over.body?.cancel();
    assert.equal(
      reserves(changes),
      before,
      "a key over its limit at its last count holds nothing early",
    );
  });
});

Deno.test("an early hold that does not fit is answered 402 without asking the org twice", async () => {
  await withWatchedWorld({ creditMicro: String(ECHO_HOLD - 1n) }, async (w, changes) => {
    for (const call of ["not recognised yet", "recognised: held early"]) {
      const before = reserves(changes);
      const response = await w.complete(ECHO_CALL);
      assert.equal(response.status, 402, call);
      assert.equal(await errorCode(response), "insufficient_credits");
      assert.equal(reserves(changes) - before, 1, call);
    }
    assert.deepEqual(await heldAndBalance(w.service.storage, w.orgId), [0n, ECHO_HOLD - 1n]);
  });
});

Deno.test("no early hold for a body the route refuses, a body without a length, or a key lacking the scope", async () => {
  await withWatchedWorld(
    { creditMicro: "1000", env: { FGW_GATEWAY_MAX_BODY_BYTES: "4096" } },
    async (w, changes) => {
      await succeeds(w);
      const before = reserves(changes);
      for (
        const body of [{ ...ECHO_CALL, stream: true }, { ...ECHO_CALL, model: "no-such-model" }, "{not json"]
      ) {
        const response = await w.complete(body);
        assert.equal(response.status, 400, JSON.stringify(body));
        await response.body?.cancel();
      }
      const init = completionInit(w.apiKey, ECHO_CALL);
      const headers = new Headers(init.headers);
      headers.delete("content-length");
      const unsized = await w.service.request(COMPLETIONS, { ...init, headers });
      assert.equal(unsized.status, 200, "a body without a length is held by the handler, as before");
      await unsized.body?.cancel();
      const large = { ...ECHO_CALL, messages: [{ role: "user", content: "x".repeat(5_000) }] };
      const tooLarge = await w.service.request(COMPLETIONS, {
        ...init,
        headers,
        body: JSON.stringify(large),
      });
      assert.equal(tooLarge.status, 413, "a body without a length is still capped by the gate");
      await tooLarge.body?.cancel();
      const readOnly = await issueKey(w.service.request, w.orgId, { scopes: ["billing:read"] });
      for (let i = 0; i < 2; i++) {
        const response = await w.complete(ECHO_CALL, { apiKey: readOnly.apiKey });
        assert.equal(response.status, 403);
        assert.equal(await errorCode(response), "insufficient_scope");
      }
      assert.equal(reserves(changes) - before, 1, "only the handler's hold of the unsized call");
      assert.deepEqual(await heldAndBalance(w.service.storage, w.orgId), [0n, 1000n - 2n * ECHO_COST]);
    },
  );
});

Deno.test("an early reserve whose ask timed out is asked again under its own id: one hold, the call answered", async () => {
  const kv = await openKvStorage(":memory:");
  const changes: AccountChange[] = [];
  let slowNextHold = false;
  const billing = overriding(kv.billing, {
    commit: async (orgId, change) => {
      changes.push(change);
      if (change.addHold && slowNextHold) {
        slowNextHold = false;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      return await kv.billing.commit(orgId, change);
    },
  });
  const w = await gatewayWorld({
    creditMicro: "300",
    storage: { ...kv, billing },
    env: { FGW_ACTOR_TIMEOUT_MS: "300" },
  });
  try {
    await succeeds(w);
    slowNextHold = true;
    const before = changes.length;
    const response = await w.complete(ECHO_CALL);
    assert.equal(response.status, 200, await response.clone().text());
    await response.body?.cancel();
    const holdIds = new Set(
      changes.slice(before).flatMap((change) => change.addHold ? [change.addHold.id] : []),
    );
    assert.equal(holdIds.size, 1, "the handler asked again for the early hold, not for a second one");
    assert.deepEqual(await heldAndBalance(kv, w.orgId), [0n, 300n - 2n * ECHO_COST]);
  } finally {
    await w[Symbol.asyncDispose]();
    await kv.close();
  }
});

Deno.test("a refusal is answered without waiting for the rest of a body still arriving, and asks no hold", async () => {
  await withWatchedWorld({ creditMicro: "1000" }, async (w, changes) => {
    const listener = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, w.service.app.fetch);
    try {
      await succeeds(w);
      // Revoked on a peer: this instance still recognises the key and starts reading the body.
      const peer = await w.openPeer(w.service.storage);
      const revoked = await peer.request(`/admin/v1/keys/${w.keyId}/revoke`, adminInit("POST"));
      await revoked.body?.cancel();
      const before = changes.length;
      const body = new TextEncoder().encode(JSON.stringify(ECHO_CALL));
      const connection = await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port });
      try {
        const head = `POST ${COMPLETIONS} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${w.apiKey}\r\n` +
          `content-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
        await connection.write(new TextEncoder().encode(head));
        await connection.write(body.subarray(0, 10));
        const reply = new Uint8Array(4096);
        const read = await Promise.race([
          connection.read(reply),
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 3_000)),
        ]);
        assert.ok(read, "answered before the body ended");
        assert.match(new TextDecoder().decode(reply.subarray(0, read)), /^HTTP\/1\.1 401 /);
      } finally {
        connection.close();
      }
      assert.equal(reserves(changes.slice(before)), 0, "the reserve was never asked");
    } finally {
      await listener.shutdown();
    }
  });
});

Deno.test("a burst past the rate limit starts about a limit's worth of early holds, not one per request", async () => {
  await withWatchedWorld({ creditMicro: "100000", key: { rateLimitRpm: 3 } }, async (w, changes) => {
    await succeeds(w);
    w.service.clock.advance(60_000); // a new window: the last count here says nothing of it
    const before = reserves(changes);
    const burst = await Promise.all(Array.from({ length: 30 }, () => w.complete(ECHO_CALL)));
    const statuses = burst.map((response) => response.status);
    await Promise.all(burst.map((response) => response.body?.cancel()));
    assert.equal(statuses.filter((status) => status === 200).length, 3);
    assert.equal(statuses.filter((status) => status === 429).length, 27);
    assert.ok(reserves(changes) - before <= 6, `${reserves(changes) - before} reserves for 3 calls`);
    assert.deepEqual(await heldAndBalance(w.service.storage, w.orgId), [0n, 100000n - 4n * ECHO_COST]);
  });
});

Deno.test("a body over 64 KiB is held by the handler, not early: checking it twice would cost more than it saves", async () => {
  await using world = await gatedWorld({ creditMicro: "100000000" });
  const { w } = world;
  await succeeds(w);
  const first = world.gate(300);
  const large = { ...ECHO_CALL, messages: [{ role: "user", content: "x".repeat(70_000) }] };
  const response = await w.complete(large);
  assert.equal(response.status, 200, await response.clone().text());
  await response.body?.cancel();
  assert.equal(await first, "timeout", "no hold was reserved while the key was counted");
});
