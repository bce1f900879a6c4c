import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import { adapterTest } from "../support/adapters.ts";
import { ADMIN_TOKEN, adminInit, HOTKEY_A } from "../support/access.ts";
import { agentCode, minerOrg, SUBMIT_AGENT, uploadInit } from "../support/agents.ts";
import { openTestService, TEST_START_MS } from "../support/test_service.ts";

const env = { FGW_ADMIN_TOKEN: ADMIN_TOKEN };
const UPLOADS = 12;

adapterTest(
  "racing uploads of one miner over two instances give one 201 and 429 for the rest",
  { needs: "concurrency" },
  async (adapter) => {
    const clock = new ManualClock(TEST_START_MS);
    await using a = await openTestService({ env, clock, storage: adapter.storage });
    await using b = await openTestService({ env, clock, storage: await adapter.openAnother() });
    const { apiKey } = await minerOrg(a.request, [HOTKEY_A]);
    const auth = { authorization: `Bearer ${apiKey}` };
    const responses = await Promise.all(
      Array.from({ length: UPLOADS }, (_, i) => {
        const instance = i % 2 === 0 ? a : b;
        return instance.request(SUBMIT_AGENT, uploadInit({ code: agentCode(`racer ${i}`) }, auth));
      }),
    );
    const statuses = responses.map((response) => response.status).toSorted();
    assert.deepEqual(statuses, [201, ...Array<number>(UPLOADS - 1).fill(429)]);
    for (const response of responses) {
      if (response.status === 429) assert.equal(response.headers.get("retry-after"), "86400");
    }
    const winner = await responses.find((response) => response.status === 201)!.json();
    for (const response of responses) if (!response.bodyUsed) await response.body?.cancel();
    const miner = await (await b.request(`/admin/v1/miners/${HOTKEY_A}`, adminInit("GET"))).json();
    assert.equal(miner.currentVersionId, winner.versionId);
    assert.deepEqual(miner.versions.map((version: { versionId: string }) => version.versionId), [
      winner.versionId,
    ]);
  },
);
