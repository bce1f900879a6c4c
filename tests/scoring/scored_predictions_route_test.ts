import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import type { Fence } from "../../storage/job_lease_store.ts";
import type { Storage } from "../../storage/storage.ts";
import { ScoredPredictionPage } from "../../routes/scoring/scored_predictions_api.ts";
import { adapterTest } from "../support/adapters.ts";
import { runJobOnce } from "../support/jobs.ts";
import { minerHotkey } from "../support/assignments.ts";
import { loopNeuron, signedInit, testSigner, VALIDATOR_STAKE_RAO } from "../support/validator_loop.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import { BASE, DAY, HOUR, openEvent, resolve, storePredictions } from "./job_fixtures.ts";

const NOW = BASE + 3 * DAY;
const SIGNER = testSigner("feed-validator");
const FEED = "/v1/validators/scored-predictions";

/** Miners 0..2 and the signing validator (uid 10, permit, staked), synced at NOW. */
async function syncWithValidator(storage: Storage): Promise<void> {
  const lease = await storage.jobLeases.tryAcquire("metagraph-sync", { holder: "test", ttlMs: 60_000 });
  const fence: Fence = { job: "metagraph-sync", token: lease!.token };
  const neurons = [
    ...[0, 1, 2].map((uid) => loopNeuron(uid, minerHotkey(uid))),
    loopNeuron(10, SIGNER.hotkey, { validatorPermit: true, stakeRao: VALIDATOR_STAKE_RAO }),
  ];
  assert.ok(await storage.metagraph.putFenced({ netuid: 41, block: 1, neurons }, { syncedAtMs: NOW, fence }));
  await storage.jobLeases.release("metagraph-sync", fence);
}

/** Three scored predictions on two events; the metagraph synced unless `synced` is false. */
async function feedWorld(storage: Storage, synced = true): Promise<TestService> {
  const [e1, e2] = [openEvent("polymarket-1"), openEvent("polymarket-2")];
  await storePredictions(storage, [e1, e2], [
    { event: e1, uid: 0, pYes: 0.7 },
    { event: e1, uid: 1, pYes: 0.4 },
    { event: e2, uid: 2, pYes: 0.6 },
  ]);
  await resolve(storage, e1, BASE + 50 * HOUR, BASE + 50 * HOUR);
  await resolve(storage, e2, BASE + 49 * HOUR, BASE + 50 * HOUR);
  if (synced) await syncWithValidator(storage);
  const service = await openTestService({ storage, clock: new ManualClock(NOW) });
  await runJobOnce(service.scoring.job, { leases: storage.jobLeases, nowMs: NOW });
  await service.metagraph.view.refresh();
  return service;
}

async function get(service: TestService, query: string): Promise<Response> {
  const path = `${FEED}${query}`;
  return await service.request(path, signedInit(SIGNER, "GET", path, { nowMs: service.clock.now() }));
}

adapterTest("a signed validator reads the feed page by page", async ({ storage }) => {
  await using service = await feedWorld(storage);
  const first = await get(service, "?limit=2&days=30");
  assert.equal(first.status, 200);
  const page = ScoredPredictionPage.parse(await first.json());
  assert.deepEqual(page.items.map((row) => [row.marketId, row.minerUid]).toSorted(), [
    ["polymarket-1", 0],
    ["polymarket-1", 1],
  ]);
  assert.ok(page.nextCursor);
  const next = await get(service, `?limit=2&days=30&cursor=${page.nextCursor}`);
  const rest = ScoredPredictionPage.parse(await next.json());
  assert.deepEqual([rest.items.map((row) => row.minerUid), rest.nextCursor], [[2], null]);
  const other = await get(service, `?limit=3&days=30&cursor=${page.nextCursor}`);
  assert.equal(other.status, 400);
  const traced = ScoredPredictionPage.parse(await (await get(service, "?includeTraceSummary=1")).json());
  assert.deepEqual(traced.items[0]!.traceSummary, {
    schemaVersion: "1.0",
    bytes: JSON.stringify({ schemaVersion: "1.0", trace: { steps: [] } }).length,
    steps: 0,
    toolNames: [],
  });
});

adapterTest("the feed refuses unsigned requests and bad parameters", async ({ storage }) => {
  await using service = await feedWorld(storage);
  const unsigned = await service.request(`${FEED}?limit=2`);
  assert.equal(unsigned.status, 401);
  const badParameters = [
    "?days=0",
    "?days=366",
    "?limit=0",
    "?limit=201",
    "?includeTraceSummary=yes",
    "?x=1",
  ];
  // A hotkey that is no SS58 address names no miner: 400, and NUL never reaches a statement.
  badParameters.push("?minerHotkey=5Nobody", "?minerHotkey=%00");
  for (const bad of badParameters) {
    assert.equal((await get(service, bad)).status, 400, bad);
  }
});

adapterTest(
  "before the first metagraph sync a signed request gets 200 and an empty list",
  async ({ storage }) => {
    await using service = await feedWorld(storage, false);
    const response = await get(service, "");
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { items: [], nextCursor: null });
  },
);
