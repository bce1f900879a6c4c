import assert from "node:assert/strict";
import { ManualClock } from "../../actors/kernel/mod.ts";
import type { LogLine } from "../../actors/kernel/mod.ts";
import { GammaMarketSource } from "../../actors/catalog/mod.ts";
import { loadConfig } from "../../scripts/service/config.ts";
import { createService, type Service } from "../../scripts/service/service.ts";
import type { Storage } from "../../storage/storage.ts";
import { adapterTest } from "../support/adapters.ts";
import { type FakeGamma, generateGammaMarkets, startFakeGamma } from "../support/fake_gamma.ts";
import { runJobOnce } from "../support/jobs.ts";
import { TEST_START_MS } from "../support/test_service.ts";

/** The info line that reports the retirement of the sample events. */
const RETIRED_LOG = /offline snapshot's sample events are retired/;

/** A service whose live source is `gamma` (one attempt per page, no waiting) with the snapshot fallback. */
async function serviceOn(storage: Storage, gamma: FakeGamma, clock: ManualClock, logs: LogLine[] = []) {
  const config = loadConfig({ FGW_IP_RPM: "0", FGW_GAMMA_URL: gamma.url });
  const source = new GammaMarketSource({
    baseUrl: gamma.url,
    clock: clock.now,
    sleep: () => Promise.resolve(),
    maxRetries: 0,
  });
  return await createService(config, {
    storage,
    clock: clock.now,
    log: (line) => logs.push(line),
    marketSource: source,
  });
}

/** One ingestion run on `service`, as its scheduler would run it (under the job's lease). */
async function ingest(service: Service, clock: ManualClock): Promise<void> {
  await runJobOnce(service.catalog.ingestion, { leases: service.storage.jobLeases, nowMs: clock.now() });
}

/** The `source` of every event `/v1/events?<query>` lists, walking every page. */
async function listedSources(service: Service, query: string): Promise<string[]> {
  const sources: string[] = [];
  let cursor: string | null = null;
  do {
    const page = `/v1/events?limit=200&${query}${cursor ? `&cursor=${cursor}` : ""}`;
    const response = await service.app.request(page);
    const body = await response.json();
    assert.equal(response.status, 200, JSON.stringify(body));
    sources.push(...body.items.map((event: { source: string }) => event.source));
    cursor = body.nextCursor;
  } while (cursor !== null);
  return sources;
}

/** The sources `/v1/events/random` picks over seeds 0..count-1 (every pool member once the pool is smaller). */
async function randomSources(service: Service, count: number): Promise<Set<string>> {
  const sources = new Set<string>();
  for (let seed = 0; seed < count; seed++) {
    const response = await service.app.request(`/v1/events/random?seed=${seed}`);
    const body = await response.json();
    if (response.status === 404) assert.equal(body.error.code, "pool_empty");
    else sources.add(body.source);
  }
  return sources;
}

/** What an instance serves: the sources listed by default, with ended events, and in the random pool. */
async function served(service: Service) {
  const all = await listedSources(service, "includeEnded=1");
  return {
    live: new Set(await listedSources(service, "")),
    all: new Set(all),
    allCount: all.length,
    random: await randomSources(service, 320),
  };
}

adapterTest(
  "sample events of the offline snapshot leave every listing, the random pool and other instances once Gamma answers",
  async (adapter) => {
    const clock = new ManualClock(TEST_START_MS);
    await using gamma = startFakeGamma(generateGammaMarkets(150, { seed: 21, nowMs: TEST_START_MS }));
    const logs: LogLine[] = [];
    const writer = await serviceOn(adapter.storage, gamma, clock, logs);
    const reader = await serviceOn(await adapter.openAnother(), gamma, clock);
    gamma.failNext(1, { kind: "status", status: 503 });
    await ingest(writer, clock);
    await reader.catalog.view.refresh();
    for (const instance of [writer, reader]) {
      const offline = await served(instance);
      assert.deepEqual([...offline.all], ["snapshot"], "offline, only the sample markets are served");
      assert.deepEqual([...offline.random], ["snapshot"]);
    }
    const sampleCount = await adapter.storage.events.count();

    clock.advance(60_000);
    await ingest(writer, clock);
    await reader.catalog.view.refresh();
    const liveCount = await adapter.storage.events.count();
    for (const instance of [writer, reader]) {
      const online = await served(instance);
      assert.deepEqual([...online.live], ["polymarket"]);
      assert.deepEqual([...online.all], ["polymarket"], "no sample event, ended or not");
      assert.equal(online.allCount, liveCount);
      assert.deepEqual([...online.random], ["polymarket"], "no sample event in the random pool");
    }
    const retiredLogs = logs.filter((line) => RETIRED_LOG.test(String(line.msg)));
    assert.equal(retiredLogs.length, 1, "logged once");
    assert.equal(retiredLogs[0]!.level, "info");
    assert.equal(retiredLogs[0]!.retired, sampleCount, "with the number of sample events retired");

    clock.advance(60_000);
    await ingest(writer, clock);
    gamma.failNext(1, { kind: "status", status: 503 });
    clock.advance(60_000);
    await ingest(writer, clock);
    await reader.catalog.view.refresh();
    assert.deepEqual(
      [...(await served(reader)).all],
      ["polymarket"],
      "an outage later loads no sample again",
    );
    assert.equal(
      logs.filter((line) => RETIRED_LOG.test(String(line.msg))).length,
      1,
      "nothing more to retire",
    );
    await writer.close();
    await reader.close();
  },
);

adapterTest(
  "the snapshot is loaded again only when the catalog is empty again, and retired again when Gamma answers",
  async (adapter) => {
    const clock = new ManualClock(TEST_START_MS);
    await using gamma = startFakeGamma([]);
    const service = await serviceOn(adapter.storage, gamma, clock);
    gamma.failNext(1, { kind: "status", status: 503 });
    await ingest(service, clock);
    const samples = await adapter.storage.events.count();
    assert.ok(samples > 0);
    clock.advance(60_000);
    await ingest(service, clock);
    assert.equal(
      await adapter.storage.events.count(),
      0,
      "Gamma answered with no market: the catalog is empty",
    );
    assert.deepEqual(await listedSources(service, "includeEnded=1"), []);

    gamma.failNext(1, { kind: "status", status: 503 });
    clock.advance(60_000);
    await ingest(service, clock);
    assert.equal(
      await adapter.storage.events.count(),
      samples,
      "offline with an empty catalog: samples again",
    );
    assert.deepEqual(new Set(await listedSources(service, "includeEnded=1")), new Set(["snapshot"]));
    const revived = (await adapter.storage.events.listChanged(null, 1_000)).filter((stored) =>
      !stored.retired
    );
    assert.ok(
      revived.every((stored) => stored.version === 3),
      "each sample came back on top of its retirement",
    );

    clock.advance(60_000);
    await ingest(service, clock);
    assert.equal(await adapter.storage.events.count(), 0);
    assert.deepEqual(await listedSources(service, "includeEnded=1"), []);
    await service.close();
  },
);

adapterTest(
  "sample copies an offline start left in storage are retired when the service runs on the snapshot file as its source",
  async (adapter) => {
    const clock = new ManualClock(TEST_START_MS);
    await using gamma = startFakeGamma([]);
    const offline = await serviceOn(adapter.storage, gamma, clock);
    gamma.failNext(1, { kind: "status", status: 503 });
    await ingest(offline, clock);
    const samples = await adapter.storage.events.count();
    assert.ok(samples > 0);

    const logs: LogLine[] = [];
    const config = loadConfig({ FGW_IP_RPM: "0", FGW_MARKET_SOURCE: "snapshot" });
    const snapshotMode = await createService(config, {
      storage: adapter.storage,
      clock: clock.now,
      log: (line) => logs.push(line),
    });
    clock.advance(60_000);
    await ingest(snapshotMode, clock);
    const listed = await listedSources(snapshotMode, "includeEnded=1");
    assert.deepEqual(
      new Set(listed),
      new Set(["polymarket"]),
      "each sample market listed once, as the source's",
    );
    assert.equal(listed.length, await adapter.storage.events.count());
    assert.deepEqual([...await randomSources(snapshotMode, 320)], ["polymarket"]);
    const retired = logs.find((line) => RETIRED_LOG.test(String(line.msg)));
    assert.equal(retired?.retired, samples);
    await snapshotMode.close();
    await offline.close();
  },
);
