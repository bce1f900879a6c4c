import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { adapterTest } from "../support/adapters.ts";
import { openTestService, TEST_START_MS, type TestService } from "../support/test_service.ts";
import { ADMIN_TOKEN, adminInit, createOrg, issueKey, keyInit, withCountUse } from "../support/access.ts";
import type { Storage } from "../../storage/storage.ts";

const BALANCE = "/v1/credits/balance";
const env = { FGW_ADMIN_TOKEN: ADMIN_TOKEN };

/** Two service instances on one store (their own actors and caches), sharing one manual clock. */
async function twoInstances(first: Storage, second: Storage): Promise<[TestService, TestService]> {
  const clock = new ManualClock(TEST_START_MS + 30_000);
  return [
    await openTestService({ env, clock, storage: first }),
    await openTestService({ env, clock, storage: second }),
  ];
}

adapterTest(
  "rotate, revoke, delete and expiry on one instance fail 401 at once on the other",
  async (adapter) => {
    const [a, b] = await twoInstances(adapter.storage, await adapter.openAnother());
    const orgId = await createOrg(a.request);
    const rotated = await issueKey(a.request, orgId);
    const revoked = await issueKey(a.request, orgId);
    const deleted = await issueKey(b.request, orgId);
    const expiring = await issueKey(a.request, orgId, {
      expiresAt: new Date(a.clock.now() + 1_000).toISOString(),
    });
    for (const k of [rotated, revoked, deleted, expiring]) {
      assert.equal((await b.request(BALANCE, keyInit(k.apiKey))).status, 200);
    }
    const fresh = await (await a.request(`/admin/v1/keys/${rotated.key.keyId}/rotate`, adminInit("POST")))
      .json();
    await a.request(`/admin/v1/keys/${revoked.key.keyId}/revoke`, adminInit("POST"));
    await b.request(`/admin/v1/keys/${deleted.key.keyId}`, adminInit("DELETE"));
    a.clock.advance(1_000);
    assert.equal((await b.request(BALANCE, keyInit(rotated.apiKey))).status, 401);
    assert.equal((await b.request(BALANCE, keyInit(fresh.apiKey))).status, 200);
    assert.equal((await b.request(BALANCE, keyInit(revoked.apiKey))).status, 401);
    assert.equal((await a.request(BALANCE, keyInit(deleted.apiKey))).status, 401);
    assert.equal((await b.request(BALANCE, keyInit(expiring.apiKey))).status, 401);
  },
);

/** Counts, per key, the storage steps in flight at once across every wrapped handle. */
class StepOverlap {
  readonly #inFlight = new Map<string, number>();
  maxSameKey = 0;

  watch(storage: Storage): Storage {
    return withCountUse(storage, (countUse) => async (keyId, use) => {
      const now = (this.#inFlight.get(keyId) ?? 0) + 1;
      this.#inFlight.set(keyId, now);
      this.maxSameKey = Math.max(this.maxSameKey, now);
      try {
        return await countUse(keyId, use);
      } finally {
        this.#inFlight.set(keyId, this.#inFlight.get(keyId)! - 1);
      }
    });
  }
}

const RPM = 300;
const WAVES = 12;

/** 2 × RPM requests of one key, in WAVES staggered concurrent waves alternating over `urls`. */
async function flood(urls: string[], apiKey: string): Promise<Response[]> {
  const perWave = (2 * RPM) / WAVES;
  const waves = Array.from({ length: WAVES }, async (_, wave) => {
    await new Promise((resolve) => setTimeout(resolve, 3 * wave));
    return await Promise.all(
      Array.from({ length: perWave }, (_, i) => fetch(urls[(wave + i) % urls.length]!, keyInit(apiKey))),
    );
  });
  return (await Promise.all(waves)).flat();
}

/** Exactly RPM admitted, each with its own remaining count, and RPM refused until the window ends. */
async function assertExactlyRpm(responses: Response[]): Promise<void> {
  const ok = responses.filter((r) => r.status === 200);
  const limited = responses.filter((r) => r.status === 429);
  assert.equal(ok.length, RPM, "admitted");
  assert.equal(limited.length, RPM, "refused");
  const remaining = ok.map((r) => Number(r.headers.get("x-ratelimit-remaining"))).toSorted((x, y) => x - y);
  assert.deepEqual(remaining, Array.from({ length: RPM }, (_, i) => i));
  assert.ok(limited.every((r) => r.headers.get("retry-after") === "30"));
  await Promise.all(responses.map((r) => r.body?.cancel()));
}

adapterTest(
  "2×rpm requests of several keys raced over two live instances: exactly rpm of each succeed",
  { needs: "concurrency" },
  async (adapter) => {
    const overlap = new StepOverlap();
    const [a, b] = await twoInstances(
      overlap.watch(adapter.storage),
      overlap.watch(await adapter.openAnother()),
    );
    const servers = [a, b].map((s) =>
      Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, s.app.fetch)
    );
    try {
      const orgId = await createOrg(a.request);
      const keys = await Promise.all([0, 1, 2].map(() => issueKey(a.request, orgId, { rateLimitRpm: RPM })));
      const urls = servers.map((server) => `http://127.0.0.1:${server.addr.port}${BALANCE}`);
      for (let round = 0; round < 3; round++) {
        const perKey = await Promise.all(keys.map((key) => flood(urls, key.apiKey)));
        for (const responses of perKey) await assertExactlyRpm(responses);
        a.clock.advance(60_000);
      }
      assert.ok(overlap.maxSameKey >= 2, "the two instances' storage steps for one key overlapped");
    } finally {
      await Promise.all(servers.map((server) => server.shutdown()));
    }
  },
);
