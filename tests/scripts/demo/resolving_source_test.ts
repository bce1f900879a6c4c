/**
 * The demo's market source (scripts/demo/resolving_source.ts): a market it resolves is stored by
 * the next ingestion pass as resolved, with the winner and the time it was given, and leaves the
 * assignment pool; the other markets are stored as the snapshot has them.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ManualClock } from "../../../actors/kernel/mod.ts";
import { SnapshotMarketSource } from "../../../actors/catalog/mod.ts";
import { currentPool } from "../../../scripts/demo/demo_resolver.ts";
import { ResolvingMarketSource } from "../../../scripts/demo/resolving_source.ts";
import { runJobOnce } from "../../support/jobs.ts";
import { openTestService, TEST_START_MS, type TestService } from "../../support/test_service.ts";

const SHIPPED = fileURLToPath(
  new URL("../../../actors/catalog/sources/polymarket_snapshot.json", import.meta.url),
);

async function ingest(service: TestService): Promise<void> {
  await runJobOnce(service.catalog.ingestion, {
    leases: service.storage.jobLeases,
    nowMs: service.clock.now(),
  });
}

Deno.test("a market the demo resolves is stored resolved at the next pass and leaves the pool", async () => {
  const clock = new ManualClock(TEST_START_MS);
  const markets = new ResolvingMarketSource(new SnapshotMarketSource({ path: SHIPPED, rebaseTo: clock.now }));
  assert.equal(markets.name, "polymarket");
  await using service = await openTestService({ clock, marketSource: markets });
  await ingest(service);
  const [first, second] = currentPool(service, clock.now());
  assert.ok(first && second);
  const winner = first.outcomeIds[1]!;
  clock.advance(60_000);
  markets.resolve(first.sourceMarketId, { winningOutcomeId: winner, resolvedAtMs: clock.now() });
  await ingest(service);
  const resolved = await service.storage.events.get(first.eventId);
  assert.deepEqual(resolved?.event.resolution, {
    resolutionStatus: "resolved",
    winningOutcomeId: winner,
    winningOutcomeName: first.names[winner],
    resolvedAt: new Date(TEST_START_MS + 60_000).toISOString(),
    finalOutcomePrices: { [first.outcomeIds[0]!]: 0, [winner]: 1 },
  });
  const pool = currentPool(service, clock.now()).map((market) => market.eventId);
  assert.ok(!pool.includes(first.eventId), "a resolved market leaves the pool");
  assert.ok(pool.includes(second.eventId), "the others stay");
  const untouched = await service.storage.events.get(second.eventId);
  assert.equal(untouched?.event.resolution.resolutionStatus, "unresolved");
  assert.deepEqual(untouched?.event.currentOutcomePrices, second.prices);
});
