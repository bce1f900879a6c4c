import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { runJobOnce } from "../support/jobs.ts";
import { minerHotkey } from "../support/assignments.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import { BASE, DAY, HOUR, openEvent, resolve, storePredictions, syncMetagraph } from "./job_fixtures.ts";

const NOW = BASE + 3 * DAY;
const e1 = openEvent("polymarket-1");
const e2 = openEvent("polymarket-2");
const e3 = openEvent("polymarket-3");
const e4 = openEvent("polymarket-4");

/**
 * e1 (resolved last): uid 3 says 0.9 (Brier 0.01), uid 0 0.7 (0.09), uid 1 0.2 (0.64), uid 2 an
 * invalid run. e2: uid 1 0.8 (0.04), uid 0 0.6 (0.16). e3 (resolved first): uid 2 0.5 (0.25).
 * "yes" wins everywhere. e4 is predicted but resolves only when a test says so.
 */
async function world(storage: Storage): Promise<TestService> {
  await storePredictions(storage, [e1, e2, e3, e4], [
    { event: e1, uid: 0, pYes: 0.7 },
    { event: e1, uid: 1, pYes: 0.2 },
    { event: e1, uid: 2, pYes: 0.9, invalid: true },
    { event: e1, uid: 3, pYes: 0.9 },
    { event: e2, uid: 0, pYes: 0.6 },
    { event: e2, uid: 1, pYes: 0.8 },
    { event: e3, uid: 2, pYes: 0.5, outcome: "yes" },
    { event: e4, uid: 0, pYes: 0.5, outcome: "yes" },
  ]);
  await resolve(storage, e1, BASE + 50 * HOUR, BASE + 50 * HOUR);
  await resolve(storage, e2, BASE + 49 * HOUR, BASE + 50 * HOUR);
  await resolve(storage, e3, BASE + 48 * HOUR, BASE + 50 * HOUR);
  await syncMetagraph(storage, [0, 1, 2, 3], { syncedAtMs: NOW });
  const service = await openTestService({ storage, clock: new ManualClock(NOW) });
  await runJobOnce(service.scoring.job, { leases: storage.jobLeases, nowMs: NOW });
  await service.metagraph.view.refresh();
  return service;
}

async function page(service: TestService, query = "") {
  const response = await service.request(`/v1/events/scored${query}`);
  assert.equal(response.status, 200, await response.clone().text());
  return await response.json();
}

type Item = { eventId: string; miners: { uid: number; brier: number | null }[] };
const ids = (body: { items: Item[] }) => body.items.map((item) => item.eventId);
const uids = (item: Item) => item.miners.map((m) => m.uid);

adapterTest(
  "scored events: newest resolution first, hand-checked stats, rows best Brier first",
  async ({ storage }) => {
    await using service = await world(storage);
    const body = await page(service);
    assert.deepEqual(ids(body), [e1.id, e2.id, e3.id]);
    assert.equal(body.nextCursor, null);
    assert.deepEqual(body.meta, { computedAt: new Date(NOW).toISOString(), scorerVersion: "1.0.0" });
    const [first] = body.items;
    assert.deepEqual({ ...first, miners: undefined }, {
      eventId: e1.id,
      source: "polymarket",
      sourceMarketId: "1",
      question: e1.question,
      resolvedAt: new Date(BASE + 50 * HOUR).toISOString(),
      scoredAt: new Date(NOW).toISOString(),
      winningOutcome: { outcomeId: e1.outcomes[0]!.outcomeId, name: "Yes" },
      marketPWinAtAdmission: 0.4,
      // (0.01 + 0.09 + 0.64) / 3; uids 3 and 0 named the winner, uid 1 did not.
      stats: { scored: 4, valid: 3, meanBrier: 0.246667, calledRate: 0.666667, bestUid: 3 },
      miners: undefined,
    });
    assert.deepEqual(first.miners, [
      {
        uid: 3,
        hotkey: minerHotkey(3),
        pWin: 0.9,
        brier: 0.01,
        called: true,
        invalid: false,
        predictedAt: first.miners[0].predictedAt,
        llmCalls: 0,
        llmCostMicro: "0",
      },
      {
        uid: 0,
        hotkey: minerHotkey(0),
        pWin: 0.7,
        brier: 0.09,
        called: true,
        invalid: false,
        predictedAt: first.miners[1].predictedAt,
        llmCalls: 0,
        llmCostMicro: "0",
      },
      {
        uid: 1,
        hotkey: minerHotkey(1),
        pWin: 0.2,
        brier: 0.64,
        called: false,
        invalid: false,
        predictedAt: first.miners[2].predictedAt,
        llmCalls: 0,
        llmCostMicro: "0",
      },
      {
        uid: 2,
        hotkey: minerHotkey(2),
        pWin: null,
        brier: null,
        called: null,
        invalid: true,
        predictedAt: first.miners[3].predictedAt,
        llmCalls: 0,
        llmCostMicro: "0",
      },
    ]);
    assert.equal(first.miners[0].predictedAt, new Date(BASE + HOUR).toISOString());
    assert.deepEqual(uids(body.items[1]), [1, 0]);
    assert.deepEqual(uids((await page(service, "?miners=2")).items[0]), [3, 0]);
    const statsOnly = await page(service, "?miners=0");
    assert.deepEqual(statsOnly.items.map(uids), [[], [], []]);
    assert.equal(statsOnly.items[0].stats.bestUid, 3);
  },
);

adapterTest("a requested miner: its events only, its row always shown", async ({ storage }) => {
  await using service = await world(storage);
  const byUid = await page(service, "?miners=0&uid=1");
  assert.deepEqual(ids(byUid), [e1.id, e2.id]);
  assert.deepEqual(byUid.items.map(uids), [[1], [1]]);
  const byHotkey = await page(service, `?miners=1&minerHotkey=${minerHotkey(2)}`);
  assert.deepEqual(ids(byHotkey), [e1.id, e3.id]);
  assert.deepEqual(byHotkey.items.map(uids), [[3, 2], [2]]);
  assert.deepEqual(ids(await page(service, "?uid=9")), []);
  assert.deepEqual(ids(await page(service, `?minerHotkey=${minerHotkey(99)}`)), [], "a hotkey never scored");
  const notAddress = await service.request("/v1/events/scored?minerHotkey=5Nobody");
  assert.equal(notAddress.status, 400, "not an SS58 address");
  for (const value of ["%00", `${minerHotkey(2)}%00`]) {
    const nul = await service.request(`/v1/events/scored?minerHotkey=${value}`);
    assert.equal(nul.status, 400, `NUL never reaches a statement: ${value}`);
  }
  const both = await service.request(`/v1/events/scored?uid=1&minerHotkey=${minerHotkey(1)}`);
  assert.equal(both.status, 400);
  const error = (await both.json()).error;
  assert.equal(error.code, "invalid_request");
  assert.deepEqual(error.details.fields, [{
    field: "uid",
    problem: "not allowed together with minerHotkey",
  }]);
});

adapterTest("a re-registered uid is a new miner; the old hotkey keeps its events", async ({ storage }) => {
  await using service = await world(storage);
  await syncMetagraph(storage, [0, 1, 2, 3], { syncedAtMs: NOW + 60_000, hotkeys: { 1: "5NewOwnerOfUid1" } });
  await service.metagraph.view.refresh();
  assert.deepEqual(ids(await page(service, "?uid=1")), []);
  assert.deepEqual(ids(await page(service, `?minerHotkey=${minerHotkey(1)}`)), [e1.id, e2.id]);
});

adapterTest(
  "pages follow signed cursors bound to their query; bad parameters are refused",
  async ({ storage }) => {
    await using service = await world(storage);
    const first = await page(service, "?limit=1&miners=1");
    assert.deepEqual(ids(first), [e1.id]);
    const second = await page(service, `?limit=1&miners=1&cursor=${first.nextCursor}`);
    assert.deepEqual(ids(second), [e2.id]);
    const third = await page(service, `?limit=1&miners=1&cursor=${second.nextCursor}`);
    assert.deepEqual([ids(third), third.nextCursor], [[e3.id], null]);
    const other = await service.request(`/v1/events/scored?limit=1&miners=2&cursor=${first.nextCursor}`);
    assert.equal(other.status, 400);
    const forged = await service.request(`/v1/events/scored?limit=1&miners=1&cursor=${first.nextCursor}x`);
    assert.equal(forged.status, 400);
    for (const bad of ["?limit=0", "?limit=26", "?miners=51", "?miners=-1", "?uid=x", "?other=1"]) {
      const response = await service.request(`/v1/events/scored${bad}`);
      assert.equal(response.status, 400, bad);
    }
  },
);

Deno.test(
  "an out-of-range number is refused in the catalog's words: must be at least / at most",
  async () => {
    await using service = await openTestService({});
    const problems = async (path: string) => {
      const response = await service.request(path);
      assert.equal(response.status, 400, path);
      return (await response.json()).error.details.fields;
    };
    const atLeastOne = [{ field: "limit", problem: "must be at least 1" }];
    assert.deepEqual(await problems("/v1/events/scored?limit=0"), atLeastOne);
    assert.deepEqual(await problems("/v1/events?limit=0"), atLeastOne);
    assert.deepEqual(await problems("/v1/events/scored?miners=51"), [
      { field: "miners", problem: "must be at most 50" },
    ]);
  },
);

adapterTest("the default query is served for 60 s; other queries are not cached", async ({ storage }) => {
  await using service = await world(storage);
  assert.deepEqual(ids(await page(service)), [e1.id, e2.id, e3.id]);
  await resolve(storage, e4, BASE + 51 * HOUR, NOW + 1_000);
  await runJobOnce(service.scoring.job, { leases: storage.jobLeases, nowMs: NOW + 2_000 });
  service.clock.advance(59_000);
  assert.deepEqual(ids(await page(service)), [e1.id, e2.id, e3.id]);
  assert.deepEqual(ids(await page(service, "?limit=10&miners=9")), [e4.id, e1.id, e2.id, e3.id]);
  service.clock.advance(1_000);
  assert.deepEqual(ids(await page(service)), [e4.id, e1.id, e2.id, e3.id]);
});
