/**
 * A key's "last used" is written at most once a minute: by the first use of each minute's
 * rate-limit window, whichever instance counts it; later uses of that minute leave it alone.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { adapterTest } from "../support/adapters.ts";
import { openTestService, TEST_START_MS } from "../support/test_service.ts";
import { ADMIN_TOKEN, adminInit, createOrg, issueKey, keyInit } from "../support/access.ts";

const MINUTE_MS = 60_000;

adapterTest(
  "a key's lastUsedAt is the first use of each minute, across two instances",
  async ({ storage, openAnother }) => {
    const env = { FGW_ADMIN_TOKEN: ADMIN_TOKEN };
    const clock = new ManualClock(TEST_START_MS + 7_000);
    const first = await openTestService({ env, storage, clock });
    const second = await openTestService({ env, storage: await openAnother(), clock });
    try {
      const orgId = await createOrg(first.request);
      const { apiKey, key } = await issueKey(first.request, orgId, { rateLimitRpm: 1_000 });
      const lastUsedAt = async () =>
        (await (await first.request(`/admin/v1/keys/${key.keyId}`, adminInit("GET"))).json()).key.lastUsedAt;
      const use = async (i: number) => {
        const response = await (i % 2 ? second : first).request("/v1/credits/balance", keyInit(apiKey));
        assert.equal(response.status, 200);
        await response.body?.cancel();
      };
      assert.equal(await lastUsedAt(), undefined);
      await Promise.all([0, 1, 2, 3].map(use));
      assert.equal(await lastUsedAt(), new Date(TEST_START_MS + 7_000).toISOString());
      for (let i = 0; i < 10; i++) {
        clock.advance(5_000);
        await use(i);
        assert.equal(await lastUsedAt(), new Date(TEST_START_MS + 7_000).toISOString(), "the same minute");
      }
      clock.set(TEST_START_MS + MINUTE_MS + 2_500);
      await Promise.all([0, 1, 2].map(use));
      assert.equal(
        await lastUsedAt(),
        new Date(TEST_START_MS + MINUTE_MS + 2_500).toISOString(),
        "the next minute",
      );
      clock.advance(MINUTE_MS - 2_501);
      await use(1);
      assert.equal(await lastUsedAt(), new Date(TEST_START_MS + MINUTE_MS + 2_500).toISOString());
    } finally {
      await first.actors.drain();
      await second.actors.drain();
    }
  },
);
