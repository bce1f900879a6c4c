import assert from "node:assert/strict";
import { decodeGammaMarket } from "../../actors/catalog/mod.ts";
import { MarketSourceError, type SourceMarket } from "../../actors/catalog/mod.ts";
import { SnapshotMarketSource } from "../../actors/catalog/mod.ts";
import { readAllPages } from "../support/fake_gamma.ts";
import { gammaMarket, type RawGammaMarket, SNAPSHOT_CAPTURED_AT } from "../support/gamma_markets.ts";

const SHIPPED = new URL("../../actors/catalog/sources/polymarket_snapshot.json", import.meta.url);
const CAPTURED_MS = Date.parse(SNAPSHOT_CAPTURED_AT);
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Writes a snapshot file in a fresh temporary directory, removed on dispose. */
async function snapshotFile(content: string) {
  const dir = await Deno.makeTempDir({ prefix: "fgw_snapshot_" });
  const path = `${dir}/snapshot.json`;
  await Deno.writeTextFile(path, content);
  return { path, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

function snapshotOf(markets: RawGammaMarket[]): string {
  return JSON.stringify({ capturedAt: SNAPSHOT_CAPTURED_AT, markets });
}

const resolvedMarket = gammaMarket({
  id: "7",
  closed: true,
  closedTime: "2026-11-19 03:12:45+00",
  umaResolutionStatus: "resolved",
  outcomePrices: '["1", "0"]',
});

Deno.test("a snapshot is served in pages whose cursor is the offset of the next page", async () => {
  const markets = Array.from({ length: 7 }, (_, index) => gammaMarket({ id: String(index + 1) }));
  await using file = await snapshotFile(snapshotOf(markets));
  const source = new SnapshotMarketSource({ path: file.path, pageSize: 3 });

  const first = await source.fetchPage(null);
  const second = await source.fetchPage(first.nextCursor);
  const third = await source.fetchPage(second.nextCursor);

  assert.deepEqual([first.nextCursor, second.nextCursor, third.nextCursor], ["3", "6", null]);
  const ids = [first, second, third].flatMap((page) => page.markets.map((market) => market.sourceMarketId));
  assert.deepEqual(ids, ["1", "2", "3", "4", "5", "6", "7"]);
  assert.equal(source.name, "polymarket");
});

Deno.test("snapshot markets decode exactly as the Gamma adapter decodes them", async () => {
  await using file = await snapshotFile(snapshotOf([gammaMarket(), resolvedMarket]));
  const { markets } = await readAllPages(new SnapshotMarketSource({ path: file.path }));
  assert.deepEqual(markets, [decodeGammaMarket(gammaMarket()), decodeGammaMarket(resolvedMarket)]);
});

Deno.test("rebaseTo shifts every timestamp by rebaseTo minus capturedAt and nothing else", async () => {
  await using file = await snapshotFile(snapshotOf([gammaMarket(), resolvedMarket]));
  const shift = 10 * DAY_MS + 1234;
  const asStored = await readAllPages(new SnapshotMarketSource({ path: file.path }));
  const rebased = await readAllPages(
    new SnapshotMarketSource({ path: file.path, rebaseTo: () => CAPTURED_MS + shift }),
  );

  const moved = (
    iso: string | null,
  ) => (iso === null ? null : new Date(Date.parse(iso) + shift).toISOString());
  const expected = asStored.markets.map((market): SourceMarket => ({
    ...market,
    startDate: moved(market.startDate)!,
    endDate: moved(market.endDate)!,
    resolution: { ...market.resolution, resolvedAt: moved(market.resolution.resolvedAt) },
  }));
  assert.deepEqual(rebased.markets, expected);
  assert.equal(rebased.markets[1]!.resolution.resolvedAt, "2026-11-29T03:12:46.234Z");
});

Deno.test("the rebase is taken when a capturedAt is first read, and kept while the file keeps it", async () => {
  await using file = await snapshotFile(snapshotOf([gammaMarket()]));
  let now = CAPTURED_MS + DAY_MS;
  let calls = 0;
  const source = new SnapshotMarketSource({
    path: file.path,
    rebaseTo: () => {
      calls++;
      return now;
    },
  });
  const before = await source.fetchPage(null);
  now += 5 * HOUR_MS;
  const after = await source.fetchPage(null);
  assert.equal(calls, 1);
  assert.deepEqual(after.markets, before.markets);
  assert.equal(before.markets[0]!.endDate, "2026-11-24T19:00:00.000Z");
});

Deno.test("the file is read again at each pass: an edit shows on the next pass, never inside one", async () => {
  const markets = Array.from({ length: 4 }, (_, index) => gammaMarket({ id: String(index + 1) }));
  await using file = await snapshotFile(snapshotOf(markets));
  let now = CAPTURED_MS + DAY_MS;
  const source = new SnapshotMarketSource({ path: file.path, pageSize: 2, rebaseTo: () => now });
  const first = await source.fetchPage(null);
  const edited = [...markets.slice(0, 3), resolvedMarket];
  await Deno.writeTextFile(file.path, snapshotOf(edited));
  now += HOUR_MS;
  const rest = await source.fetchPage(first.nextCursor);
  assert.deepEqual(
    rest.markets.map((market) => market.sourceMarketId),
    ["3", "4"],
    "the pass keeps its read",
  );
  const next = await readAllPages(source);
  assert.deepEqual(next.markets.map((market) => market.sourceMarketId), ["1", "2", "3", "7"]);
  assert.equal(next.markets[3]!.resolution.status, "resolved", "the edit resolved a market");
  assert.equal(next.markets[0]!.endDate, first.markets[0]!.endDate, "same capturedAt: same shift");

  await Deno.writeTextFile(
    file.path,
    JSON.stringify({ capturedAt: new Date(CAPTURED_MS - DAY_MS).toISOString(), markets }),
  );
  const recaptured = await source.fetchPage(null);
  assert.equal(
    Date.parse(recaptured.markets[0]!.endDate) - Date.parse(first.markets[0]!.endDate),
    DAY_MS + HOUR_MS,
    "another capturedAt is rebased anew (an hour later): captured a day earlier, its dates move a day and an hour",
  );
});

Deno.test("an unchanged file is not parsed again; a bad read keeps the shift for the next good one", async () => {
  await using file = await snapshotFile(snapshotOf([gammaMarket()]));
  let now = CAPTURED_MS + DAY_MS;
  const source = new SnapshotMarketSource({ path: file.path, rebaseTo: () => now });
  const first = await source.fetchPage(null);
  const good = await Deno.readTextFile(file.path);
  // The same size and modification time: taken for the same file, so not read again.
  const { mtime } = await Deno.stat(file.path);
  await Deno.writeTextFile(file.path, good.replace(`"id":"612345"`, `"id":"612346"`));
  await Deno.utime(file.path, mtime!, mtime!);
  assert.equal(
    (await source.fetchPage(null)).markets[0]!.sourceMarketId,
    "612345",
    "an unchanged stamp is not parsed",
  );
  await Deno.writeTextFile(file.path, good.slice(0, 40));
  now += HOUR_MS;
  await assert.rejects(source.fetchPage(null), MarketSourceError);
  await Deno.writeTextFile(file.path, good);
  const after = await source.fetchPage(null);
  assert.deepEqual(after.markets, first.markets, "the same capturedAt keeps its shift through a bad read");
  await Deno.remove(file.path);
  await assert.rejects(
    source.fetchPage(null),
    MarketSourceError,
    "each pass checks the file: a removed one fails",
  );
});

Deno.test("malformed markets in a snapshot are skipped and counted", async () => {
  await using file = await snapshotFile(
    snapshotOf([gammaMarket(), { id: "8" }, gammaMarket({ endDate: "soon" })]),
  );
  const result = await readAllPages(new SnapshotMarketSource({ path: file.path }));
  assert.equal(result.malformed, 2);
  assert.equal(result.markets.length, 1);
});

Deno.test("a missing, unparseable or misshapen snapshot file is a MarketSourceError", async () => {
  const missing = new SnapshotMarketSource({ path: "/nonexistent/fgw/snapshot.json" });
  await assert.rejects(missing.fetchPage(null), MarketSourceError);
  for (
    const content of [
      "{not json",
      '{"markets": []}',
      JSON.stringify({ capturedAt: "yesterday", markets: [] }),
    ]
  ) {
    await using file = await snapshotFile(content);
    await assert.rejects(
      new SnapshotMarketSource({ path: file.path }).fetchPage(null),
      MarketSourceError,
      content,
    );
  }
});

Deno.test("a failed read is retried on the next page request", async () => {
  await using file = await snapshotFile("{not json");
  const source = new SnapshotMarketSource({ path: file.path });
  await assert.rejects(source.fetchPage(null), MarketSourceError);
  await Deno.writeTextFile(file.path, snapshotOf([gammaMarket()]));
  const page = await source.fetchPage(null);
  assert.equal(page.markets.length, 1);
});

Deno.test("a snapshot cursor that is not an offset is refused with a TypeError", async () => {
  await using file = await snapshotFile(snapshotOf([gammaMarket()]));
  const source = new SnapshotMarketSource({ path: file.path });
  await assert.rejects(source.fetchPage("-1"), TypeError);
  await assert.rejects(source.fetchPage("abc"), TypeError);
});

Deno.test("the shipped snapshot decodes without a malformed market", async () => {
  const bytes = (await Deno.stat(SHIPPED)).size;
  assert.ok(bytes < 600 * 1024, `snapshot is ${bytes} bytes`);
  const result = await readAllPages(new SnapshotMarketSource({ path: SHIPPED }));
  assert.equal(result.malformed, 0);
  assert.ok(result.markets.length >= 250 && result.markets.length <= 350, `${result.markets.length} markets`);
  const raw = JSON.parse(await Deno.readTextFile(SHIPPED));
  assert.equal(raw.capturedAt, "2026-11-20T12:00:00.000Z");
});

Deno.test("the shipped snapshot holds every kind of market the catalog must handle", async () => {
  const { markets } = await readAllPages(new SnapshotMarketSource({ path: SHIPPED }));
  const raws: RawGammaMarket[] = JSON.parse(await Deno.readTextFile(SHIPPED)).markets;
  const ends = markets.map((market) => Date.parse(market.endDate) - CAPTURED_MS);
  const status = (wanted: string) => markets.filter((market) => market.resolution.status === wanted);

  const poolCandidates = markets.filter((market, index) =>
    ends[index]! >= DAY_MS && ends[index]! <= 7 * DAY_MS && market.resolution.status === "unresolved" &&
    Object.values(market.outcomePrices).every((price) => price >= 0.05 && price <= 0.95)
  );
  assert.ok(
    poolCandidates.length >= 40,
    `${poolCandidates.length} markets end in 24 h..7 d with prices in 0.05..0.95`,
  );
  assert.ok(Math.min(...ends) >= -30 * DAY_MS && Math.max(...ends) <= 120 * DAY_MS);
  assert.ok(status("resolved").length >= 10);
  assert.ok(status("voided").length >= 2);
  const disputed = raws.filter((market) => market.umaResolutionStatus === "disputed").map((market) =>
    String(market.id)
  );
  assert.ok(disputed.length >= 2);
  for (const id of disputed) {
    assert.equal(markets.find((market) => market.sourceMarketId === id)?.resolution.status, "unresolved");
  }
  assert.ok(markets.filter((market) => market.question.includes("Up or Down")).length >= 2);
  assert.ok(markets.filter((market) => market.outcomes.length > 2).length >= 5);
  assert.ok(
    markets.filter((market) => market.liquidityUsd < 1000 && ends[markets.indexOf(market)]! > 0).length >= 10,
  );
  assert.ok(markets.filter((market) => market.liquidityUsd > 100_000).length >= 10);
  const tags = new Set(markets.flatMap((market) => market.tagIds));
  for (const topic of [2, 1, 21, 100328, 74]) assert.ok(tags.has(topic), `tag ${topic}`);
});
