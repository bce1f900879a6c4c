import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import type { LogLine } from "../../actors/kernel/mod.ts";
import { GammaMarketSource, SnapshotMarketSource } from "../../actors/catalog/mod.ts";
import { loadConfig } from "../../scripts/service/config.ts";
import { createService } from "../../scripts/service/service.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { generateGammaMarkets, type RawGammaMarket, startFakeGamma } from "../support/fake_gamma.ts";
import { gammaMarket, SNAPSHOT_CAPTURED_AT } from "../support/gamma_markets.ts";
import { runJobOnce } from "../support/jobs.ts";
import { TEST_START_MS } from "../support/test_service.ts";

const noWait = () => Promise.resolve();

type Service = Awaited<ReturnType<typeof createService>>;

/** One run of the service's ingestion job, under its lease, as the scheduler would start it. */
async function ingest(service: Service, clock: ManualClock): Promise<void> {
  await runJobOnce(service.catalog.ingestion, { leases: service.storage.jobLeases, nowMs: clock.now() });
}

async function serviceOn(storage: Storage, gammaUrl: string, clock: ManualClock, logs: LogLine[] = []) {
  const config = loadConfig({ FGW_IP_RPM: "0", FGW_GAMMA_URL: gammaUrl });
  const source = new GammaMarketSource({ baseUrl: gammaUrl, clock: clock.now, sleep: noWait, maxRetries: 1 });
  return await createService(config, {
    storage,
    clock: clock.now,
    log: (line) => logs.push(line),
    marketSource: source,
  });
}

async function versions(storage: Storage): Promise<Map<string, number>> {
  const all = await storage.events.listChanged(null, 100_000);
  return new Map(all.map((stored) => [stored.event.id, stored.version]));
}

adapterTest(
  "ingestion admits markets from Gamma and a second unchanged pass writes nothing",
  async (adapter) => {
    const clock = new ManualClock(TEST_START_MS);
    const markets = generateGammaMarkets(400, { seed: 7, nowMs: TEST_START_MS });
    await using gamma = startFakeGamma(markets);
    const service = await serviceOn(adapter.storage, gamma.url, clock);
    const first = await service.catalog.ingestion.pass(
      new GammaMarketSource({ baseUrl: gamma.url, clock: clock.now }),
    );
    assert.ok(first.admitted > 50, JSON.stringify(first));
    assert.equal(first.admitted, await adapter.storage.events.count());
    const before = await versions(adapter.storage);
    clock.advance(60_000);
    const second = await service.catalog.ingestion.pass(
      new GammaMarketSource({ baseUrl: gamma.url, clock: clock.now }),
    );
    assert.equal(second.admitted + second.updated, 0, JSON.stringify(second));
    assert.equal(second.unchanged, first.admitted);
    assert.deepEqual(await versions(adapter.storage), before);
    await service.close();
  },
);

adapterTest("a price change on the source updates only that event", async (adapter) => {
  const clock = new ManualClock(TEST_START_MS);
  const markets: RawGammaMarket[] = generateGammaMarkets(120, { seed: 3, nowMs: TEST_START_MS });
  await using gamma = startFakeGamma(markets);
  const service = await serviceOn(adapter.storage, gamma.url, clock);
  await ingest(service, clock);
  const admitted = (await adapter.storage.events.listChanged(null, 1_000)).map((s) => s.event);
  const target = admitted.find((event) => event.resolution.resolutionStatus === "unresolved")!;
  const raw = markets.find((market) => `polymarket-${market.id}` === target.id)!;
  raw.outcomePrices = JSON.stringify(target.outcomes.map((_, i) => i === 0 ? "0.123" : "0.877"));
  clock.advance(60_000);
  const stats = await service.catalog.ingestion.pass(
    new GammaMarketSource({ baseUrl: gamma.url, clock: clock.now }),
  );
  assert.equal(stats.updated, 1);
  const stored = await adapter.storage.events.get(target.id);
  assert.equal(stored?.version, 2);
  assert.equal(Object.values(stored!.event.currentOutcomePrices)[0], 0.123);
  assert.deepEqual(stored!.event.outcomePricesAtAdmission, target.outcomePricesAtAdmission);
  await service.close();
});

Deno.test("an unreachable source backs off, logs once per attempt, and the catalog keeps serving", async () => {
  const clock = new ManualClock(TEST_START_MS);
  await using gamma = startFakeGamma(generateGammaMarkets(100, { seed: 5, nowMs: TEST_START_MS }));
  const { openKvStorage } = await import("../../storage/kv/kv_storage.ts");
  const logs: LogLine[] = [];
  const service = await serviceOn(await openKvStorage(":memory:"), gamma.url, clock, logs);
  await ingest(service, clock);
  const served = (await (await service.app.request("/v1/events?limit=200")).json()).items.length;
  assert.ok(served > 0);
  gamma.failNext(1_000, { kind: "status", status: 503 });
  const waits: number[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    await ingest(service, clock);
    waits.push(service.catalog.ingestion.intervalMs());
  }
  assert.deepEqual(waits, [120_000, 240_000, 480_000]);
  const warnings = logs.filter((line) => line.level === "warn");
  assert.equal(warnings.length, 3);
  assert.deepEqual(warnings.map((line) => line.nextAttemptInMs), waits);
  assert.match(String(warnings[0]!.reason), /503/);
  const after = (await (await service.app.request("/v1/events?limit=200")).json()).items.length;
  assert.equal(after, served);
  await service.close();
});

Deno.test("offline start with an empty catalog serves the shipped snapshot and becomes ready", async () => {
  const clock = new ManualClock(Date.now());
  const { openKvStorage } = await import("../../storage/kv/kv_storage.ts");
  const unreachable = "http://127.0.0.1:9"; // discard port: connection refused
  const service = await serviceOn(await openKvStorage(":memory:"), unreachable, clock);
  assert.equal((await service.app.request("/readyz")).status, 503);
  await ingest(service, clock);
  assert.equal((await service.app.request("/readyz")).status, 200);
  const body = await (await service.app.request("/v1/events?limit=5")).json();
  assert.equal(body.items.length, 5);
  assert.ok(Date.parse(body.items[0].endDate) > clock.now(), "snapshot dates are shifted to now");
  assert.equal(body.items[0].source, "snapshot", "sample markets are never labelled as live Polymarket data");
  assert.match(body.items[0].id, /^snapshot-/);
  assert.equal((await service.app.request("/v1/events/random")).status, 200);
  await service.close();
});

adapterTest("a second instance's catalog view shows what the first instance ingested", async (adapter) => {
  const clock = new ManualClock(TEST_START_MS);
  await using gamma = startFakeGamma(generateGammaMarkets(150, { seed: 11, nowMs: TEST_START_MS }));
  const writer = await serviceOn(adapter.storage, gamma.url, clock);
  const reader = await serviceOn(await adapter.openAnother(), gamma.url, clock);
  await reader.catalog.view.refresh();
  assert.equal(reader.catalog.view.current().size, 0);
  await ingest(writer, clock);
  await reader.catalog.view.refresh();
  assert.equal(reader.catalog.view.current().size, await adapter.storage.events.count());
  const fromWriter = await (await writer.app.request("/v1/events?limit=3")).json();
  const fromReader = await (await reader.app.request("/v1/events?limit=3")).json();
  assert.deepEqual(fromReader.items, fromWriter.items);
  const onReader = await reader.app.request(`/v1/events?limit=3&cursor=${fromWriter.nextCursor}`);
  assert.equal(onReader.status, 200, "cursors from one instance work on another");
  const onWriter = await writer.app.request(`/v1/events?limit=3&cursor=${fromWriter.nextCursor}`);
  const [a, b] = [await onReader.json(), await onWriter.json()];
  assert.equal(a.items.length, 3);
  assert.deepEqual(a.items.map((e: { id: string }) => e.id), b.items.map((e: { id: string }) => e.id));
  const firstPage = new Set(fromWriter.items.map((e: { id: string }) => e.id));
  assert.ok(
    a.items.every((e: { id: string }) => !firstPage.has(e.id)),
    "the second page continues, no repeats",
  );
  await writer.close();
  await reader.close();
});

Deno.test("a market whose write fails is counted and logged, the pass goes on, and the next pass retries it", async () => {
  const clock = new ManualClock(TEST_START_MS);
  await using gamma = startFakeGamma(generateGammaMarkets(200, { seed: 9, nowMs: TEST_START_MS }));
  const { openKvStorage } = await import("../../storage/kv/kv_storage.ts");
  const storage = await openKvStorage(":memory:");
  const put = storage.events.put.bind(storage.events);
  let failNext = true;
  storage.events.put = (event, expected, now) => {
    if (!failNext) return put(event, expected, now);
    failNext = false;
    return Promise.reject(new Error("disk full"));
  };
  const logs: LogLine[] = [];
  const service = await serviceOn(storage, gamma.url, clock, logs);
  const source = new GammaMarketSource({ baseUrl: gamma.url, clock: clock.now });
  const first = await service.catalog.ingestion.pass(source);
  assert.equal(first.failed, 1);
  assert.ok(first.admitted > 50);
  assert.equal(first.admitted, await storage.events.count());
  assert.ok(
    logs.some((line) => line.msg === "cannot apply a market" && String(line.error).includes("disk full")),
  );
  const second = await service.catalog.ingestion.pass(source);
  assert.deepEqual([second.failed, second.admitted], [0, 1]);
  await service.close();
});

adapterTest(
  "a pass from a run that lost its job is not recorded over the newer run's, and is logged",
  async (adapter) => {
    const clock = new ManualClock(TEST_START_MS);
    await using gamma = startFakeGamma(generateGammaMarkets(50, { seed: 13, nowMs: TEST_START_MS }));
    const oldLogs: LogLine[] = [];
    const newLogs: LogLine[] = [];
    const old = await serviceOn(adapter.storage, gamma.url, clock, oldLogs);
    const newer = await serviceOn(await adapter.openAnother(), gamma.url, clock, newLogs);
    const job = old.catalog.ingestion.name;
    const leases = adapter.storage.jobLeases;
    const oldLease = await leases.tryAcquire(job, { holder: "old", ttlMs: 60_000 });
    // The old run stalls; its lease is given up and the newer instance's run takes the job.
    await leases.release(job, { token: oldLease!.token });
    const newLease = await leases.tryAcquire(job, { holder: "newer", ttlMs: 60_000 });
    const signal = new AbortController().signal;
    await newer.catalog.ingestion.run(clock.now(), { signal, fence: { job, token: newLease!.token } });
    await old.catalog.ingestion.run(clock.now(), { signal, fence: { job, token: oldLease!.token } });
    const record = JSON.parse((await adapter.storage.settings.get("catalog_last_pass"))!);
    assert.equal(record.token, newLease!.token, "the newer run's record stands");
    assert.ok(!newLogs.some((line) => line.msg.startsWith("ingestion pass not recorded")));
    const refused = oldLogs.filter((line) => line.msg.startsWith("ingestion pass not recorded"));
    assert.deepEqual(refused.map((line) => [line.level, line.token]), [["warn", oldLease!.token]]);
    await old.close();
    await newer.close();
  },
);

adapterTest(
  "a source that later reports another settlement is logged and counted once; the settled one stays",
  async (adapter) => {
    const clock = new ManualClock(TEST_START_MS);
    const markets: RawGammaMarket[] = generateGammaMarkets(60, { seed: 5, nowMs: TEST_START_MS });
    await using gamma = startFakeGamma(markets);
    const logs: LogLine[] = [];
    const service = await serviceOn(adapter.storage, gamma.url, clock, logs);
    await ingest(service, clock);
    const admitted = (await adapter.storage.events.listChanged(null, 1_000)).map((s) => s.event);
    const target = admitted.find((e) =>
      e.resolution.resolutionStatus === "unresolved" && e.outcomes.length === 2
    )!;
    const raw = markets.find((market) => `polymarket-${market.id}` === target.id)!;
    const settle = (prices: string[]) =>
      Object.assign(raw, {
        closed: true,
        closedTime: "2026-01-02 00:00:00+00",
        umaResolutionStatus: "resolved",
        umaResolutionStatuses: '["proposed"]',
        outcomePrices: JSON.stringify(prices),
      });
    settle(["1", "0"]);
    clock.advance(60_000);
    await ingest(service, clock);
    const settled = (await adapter.storage.events.get(target.id))!.event.resolution;
    assert.equal(settled.winningOutcomeId, target.outcomes[0]!.outcomeId);
    settle(["0", "1"]);
    for (const _ of [1, 2]) {
      clock.advance(60_000);
      await ingest(service, clock);
    }
    assert.deepEqual((await adapter.storage.events.get(target.id))!.event.resolution, settled);
    const warned = logs.filter((line) =>
      line.msg === "source contradicts a settled resolution; the settled one is kept"
    );
    assert.deepEqual(warned.map((line) => [line.eventId, line.reported]), [[
      target.id,
      { status: "resolved", winningOutcomeId: target.outcomes[1]!.outcomeId },
    ]]);
    const text = await service.metrics.render();
    assert.match(text, /fgw_settlement_contradictions_total\{seen_by="ingestion"\} 1\n/);
    await service.close();
  },
);

Deno.test("a 3-outcome market resolved with two prices is logged by name and why, once, and stays unresolved", async () => {
  const clock = new ManualClock(TEST_START_MS);
  const threeWay = gammaMarket({
    id: "700001",
    outcomes: '["Man City", "Draw", "Arsenal"]',
    outcomePrices: '["0.5", "0.3", "0.2"]',
    clobTokenIds: '["11", "12", "13"]',
  });
  const path = await Deno.makeTempFile({ suffix: ".json" });
  const write = () =>
    Deno.writeTextFile(path, JSON.stringify({ capturedAt: SNAPSHOT_CAPTURED_AT, markets: [threeWay] }));
  await write();
  const logs: LogLine[] = [];
  const { openKvStorage } = await import("../../storage/kv/kv_storage.ts");
  const service = await createService(loadConfig({ FGW_IP_RPM: "0" }), {
    storage: await openKvStorage(":memory:"),
    clock: clock.now,
    log: (line) => logs.push(line),
    marketSource: new SnapshotMarketSource({ path }),
  });
  await ingest(service, clock);
  assert.equal((await service.storage.events.get("polymarket-700001"))?.version, 1);
  // What docs/examples/resolve_sample_market.py wrote before it took the winner as an argument.
  Object.assign(threeWay, { closed: true, umaResolutionStatus: "resolved", outcomePrices: '["1","0"]' });
  await write();
  for (const _pass of [1, 2]) {
    clock.advance(60_000);
    await ingest(service, clock);
  }
  const passes = logs.filter((line) => line.msg === "market ingestion pass");
  assert.deepEqual(passes.map((line) => line["malformed"]), [0, 1, 1]);
  assert.deepEqual(logs.filter((line) => line.msg.startsWith("malformed market")), [{
    level: "warn",
    msg: "malformed market skipped: the catalog keeps its last state of it",
    source: "polymarket",
    sourceMarketId: "700001",
    eventId: "polymarket-700001",
    reason: "2 outcomePrices for 3 outcomes",
  }]);
  const stored = await service.storage.events.get("polymarket-700001");
  assert.equal(stored?.event.resolution.resolutionStatus, "unresolved");
  await service.close();
  await Deno.remove(path);
});
