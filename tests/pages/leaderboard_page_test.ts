import assert from "node:assert/strict";
import { openKvStorage } from "../../storage/kv/kv_storage.ts";
import { BOARD_COLUMNS } from "../../routes/scoring/leaderboard_columns.ts";
import { minerHotkey } from "../support/assignments.ts";
import { openTestService, type TestService } from "../support/test_service.ts";
import { boardWorld } from "../scoring/board_world.ts";

const HTML = { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8" };

async function page(service: TestService, query = ""): Promise<string> {
  const response = await service.request(`/leaderboard${query}`, { headers: HTML });
  assert.equal(response.status, 200, query);
  assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
  return await response.text();
}

const rowUids = (html: string) => [...html.matchAll(/<tr data-uid="(\d+)">/g)].map((m) => Number(m[1]));
const sortedHeaders = (
  html: string,
) => [...html.matchAll(/<th scope="col"[^>]*aria-sort="(\w+)"[^>]*>(.*?)<\/th>/g)];

Deno.test("the leaderboard page lists the miners in the server's sorted order, the sorted header marked with aria-sort", async () => {
  await using service = await boardWorld(await openKvStorage(":memory:"));
  const byIncentive = await page(service);
  assert.deepEqual(rowUids(byIncentive), [0, 1, 2]);
  const byBrier = await page(service, "?sort=brier&order=desc");
  assert.deepEqual(rowUids(byBrier), [1, 0, 2]);
  const marked = sortedHeaders(byBrier);
  assert.equal(marked.length, 1);
  assert.equal(marked[0]![1], "descending");
  assert.match(marked[0]![2]!, /Mean Brier/);
  // Its link gives the other order; another column's link its own default order.
  assert.match(marked[0]![2]!, /href="\/leaderboard\?sort=brier&amp;order=asc&amp;limit=256"/);
  assert.match(byBrier, /href="\/leaderboard\?sort=edge&amp;order=desc&amp;limit=256"/);
  // Ascending: the same rows the JSON route gives for that query.
  const json = await (await service.request("/v1/leaderboard?sort=brier&order=asc&limit=256")).json();
  assert.deepEqual(
    rowUids(await page(service, "?sort=brier&order=asc")),
    json.neurons.map((n: { uid: number }) => n.uid),
  );
});

Deno.test("every column header is explained, in the CSV's column order, and the page links the same view as CSV and JSON", async () => {
  await using service = await boardWorld(await openKvStorage(":memory:"));
  const html = await page(service, "?sort=uid&order=desc&limit=2");
  const headers = [...html.matchAll(/<th scope="col"[^>]*>.*?<abbr title="([^"]+)">([^<]+)<\/abbr>/g)];
  assert.deepEqual(headers.map((m) => m[2]), BOARD_COLUMNS.map((c) => c.heading));
  assert.ok(headers.every((m) => m[1]!.length > 20));
  for (const column of BOARD_COLUMNS) assert.ok(html.includes(`<dt>${column.heading}</dt>`), column.id);
  assert.match(html, /href="\/v1\/leaderboard\?sort=uid&amp;order=desc&amp;limit=2&amp;format=csv">CSV</);
  assert.match(html, /href="\/v1\/leaderboard\?sort=uid&amp;order=desc&amp;limit=2">JSON</);
  assert.deepEqual(rowUids(html), [2, 1]);
  assert.match(html, /Showing the first 2 of 3 miners/);
  assert.match(html, new RegExp(`<a href="/miners/${minerHotkey(1)}"`));
});

Deno.test("the baselines are pinned above the miners, marked as baselines and not ranked", async () => {
  await using service = await boardWorld(await openKvStorage(":memory:"));
  const html = await page(service, "?sort=uid");
  const baselines = [...html.matchAll(/<tr class="baseline" data-baseline="(\w+)">(.*?)<\/tr>/g)];
  assert.deepEqual(baselines.map((m) => m[1]), ["market", "consensus"]);
  assert.ok(html.indexOf('data-baseline="consensus"') < html.indexOf('data-uid="0"'));
  const market = baselines[0]![2]!;
  assert.match(market, /^<td><span class="tag">baseline<\/span><\/td><td class="num">—<\/td>/);
  assert.match(market, /Market price at admission/);
  assert.match(market, /0\.360 <span class="ci"[^>]*>\[0\.360, 0\.360\]<\/span>/);
  assert.match(baselines[1]![2]!, /<td class="num">0\.040<\/td>/); // three events: no interval
});

Deno.test("the page shows a stale banner while there are no prices, and none with fresh ones", async () => {
  await using stale = await boardWorld(await openKvStorage(":memory:"), { prices: false });
  const html = await page(stale);
  assert.match(html, /<p class="banner" role="status">These figures may be out of date/);
  assert.match(html, /No prices are known yet/);
  await using fresh = await boardWorld(await openKvStorage(":memory:"));
  assert.doesNotMatch(await page(fresh), /class="banner"/);
});

Deno.test("an empty board says why and suggests the demo", async () => {
  await using service = await openTestService({});
  const html = await page(service);
  assert.match(html, /<div class="empty"><p>No forecasting miner is on the board/);
  assert.match(html, /task demo/);
  assert.doesNotMatch(html, /<table/);
  assert.match(html, /Figures computed — not yet/);
});

Deno.test("the page says how often the board is rebuilt: FGW_LEADERBOARD_CACHE_MS in words", async () => {
  const periods: [string, string][] = [["60000", "every minute"], ["1000", "every second"], [
    "300000",
    "every 5 minutes",
  ]];
  for (const [ms, said] of periods) {
    await using service = await openTestService({ env: { FGW_LEADERBOARD_CACHE_MS: ms } });
    assert.match(await page(service), new RegExp(`Board built [^<]*, rebuilt ${said}\\.`), ms);
  }
});

Deno.test("a page asked for JSON is still the page (HTML), and it links its JSON twin", async () => {
  await using service = await openTestService({});
  const response = await service.request("/leaderboard", { headers: { accept: "application/json" } });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
  assert.match(await response.text(), /<a href="\/v1\/leaderboard\?[^"]*">JSON<\/a>/);
});

Deno.test("a bad sort is a 400 page naming it, or the JSON error body for a client asking for JSON", async () => {
  await using service = await openTestService({});
  const response = await service.request("/leaderboard?sort=stake", { headers: HTML });
  assert.equal(response.status, 400);
  assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
  const html = await response.text();
  assert.match(html, /<li><code>sort<\/code>: /);
  const json = await service.request("/leaderboard?sort=stake&order=up", {
    headers: { accept: "application/json" },
  });
  assert.equal(json.status, 400);
  const error = (await json.json()).error;
  assert.equal(error.code, "invalid_request");
  assert.deepEqual(error.details.fields.map((f: { field: string }) => f.field).sort(), ["order", "sort"]);
});

Deno.test("the home page shows the figures of GET /v1/overview and links everywhere", async () => {
  await using service = await boardWorld(await openKvStorage(":memory:"));
  const overview = await (await service.request("/v1/overview")).json();
  const response = await service.request("/", { headers: HTML });
  assert.equal(response.status, 200);
  const html = await response.text();
  const figure = (name: string) => html.match(new RegExp(`<dt>${name}</dt><dd>(.*?)</dd>`))?.[1] ?? "";
  assert.match(figure("Events live"), new RegExp(`>${overview.eventsLive}</a>`));
  assert.match(
    figure("Miners scored"),
    new RegExp(`>${overview.minersScored}</a> <span class="muted">of ${overview.miners}`),
  );
  assert.match(figure("Predictions in the window"), new RegExp(`^${overview.predictionsInWindow} `));
  assert.equal(figure("Last scoring run"), `${overview.lastScoringRun.slice(0, 16).replace("T", " ")} UTC`);
  for (const href of ["/leaderboard", "/events", "/scored", "/methodology", "/docs", "/v1/overview"]) {
    assert.ok(html.includes(`href="${href}"`), href);
  }
  assert.doesNotMatch(html, /class="empty"/);
});

Deno.test("the home page of a service with nothing scored says so and suggests the demo", async () => {
  await using service = await openTestService({});
  const html = await (await service.request("/", { headers: HTML })).text();
  assert.match(html, /<dt>Last scoring run<\/dt><dd>not yet<\/dd>/);
  assert.match(html, /Nothing has been scored yet/);
  assert.match(html, /task demo/);
});
