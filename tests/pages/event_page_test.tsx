import assert from "node:assert/strict";
import { minerHotkey } from "../support/assignments.ts";
import { BASE, CONSENSUS_YES, eventWorld, HOUR, OPEN, SCORED, yesPriceAt } from "./event_world.ts";
import { HTML } from "./html_form.ts";

/** The chart's points as `series x y`, from their data-* attributes. */
function chartPoints(html: string): string[] {
  return [...html.matchAll(/class="point" data-series="([^"]+)" data-x="([^"]+)" data-y="([^"]+)"/g)]
    .map((m) => `${m[1]} ${m[2]} ${m[3]}`);
}

/** The chart's x of an hour: `12-02 14:00` (UTC). */
function utcHour(ms: number): string {
  return new Date(ms).toISOString().slice(5, 16).replace("T", " ");
}

Deno.test("an open event's page: the market, its price chart, and no consensus nor miners' forecasts", async () => {
  await using service = await eventWorld();
  const response = await service.request(`/events/${OPEN.id}`, { headers: HTML });
  assert.equal(response.status, 200);
  const html = await response.text();
  assert.match(html, /<h1>Will polymarket-12 happen\?<\/h1>/);
  assert.match(html, /<p class="description">Resolves Yes if polymarket-12 happens.<\/p>/);
  assert.deepEqual(chartPoints(html), [
    `Market: Yes ${utcHour(BASE + 60 * HOUR)} ${yesPriceAt(60).toFixed(3)}`,
    `Market: Yes ${utcHour(BASE + 61 * HOUR)} ${yesPriceAt(61).toFixed(3)}`,
  ]);
  assert.match(html, /shown here once the event resolves/);
  assert.match(html, /with an API key/);
  assert.match(html, /<code>GET \/v1\/predictions\/polymarket-12<\/code>/);
  // Neither the consensus (0.777 / 0.223), nor uid 0's forecast (0.66), nor any miner is on the page.
  assert.doesNotMatch(html, /0\.777|0\.223|0\.66|Consensus:|\/miners\/|Miners&#39; forecasts<\/h2>/);
});

Deno.test("a resolved event's page: the consensus on the price chart, the resolution and every miner's forecast", async () => {
  await using service = await eventWorld();
  const html = await (await service.request(`/events/${SCORED.id}`, { headers: HTML })).text();
  const hours = [0, 1, 2];
  assert.deepEqual(chartPoints(html), [
    ...hours.map((h) => `Market: Yes ${utcHour(BASE + h * HOUR)} ${yesPriceAt(h).toFixed(3)}`),
    ...hours.map((h) => `Consensus: Yes ${utcHour(BASE + h * HOUR)} ${CONSENSUS_YES.toFixed(3)}`),
  ]);
  assert.match(html, /<dd>Yes won.<\/dd>/);
  assert.match(
    html,
    /<th scope="row">Yes \(winner\)<\/th><td class="num">0.400<\/td><td class="num">0.400<\/td><td class="num">1.000<\/td>/,
  );
  const rows = [
    ...html.matchAll(
      /<tr><td class="num">(\d+)<\/td><td><a href="\/miners\/([^"]+)"[^>]*>[^<]*<\/a><\/td><td class="num">([^<]+)<\/td><td class="num">([^<]+)<\/td>/g,
    ),
  ]
    .map((m) => [Number(m[1]), m[2], m[3], m[4]]);
  assert.deepEqual(rows, [
    [2, minerHotkey(2), "0.900", "0.010"],
    [0, minerHotkey(0), "0.700", "0.090"],
    [1, minerHotkey(1), "0.200", "0.640"],
  ]);
  assert.match(html, /3 miners scored, 3 valid; mean Brier 0.247/);
  assert.doesNotMatch(html, /once the event resolves/);
});

Deno.test("a resolved event's chart follows the winner, the outcome its forecasts table names", async () => {
  await using service = await eventWorld({ noWon: true });
  const html = await (await service.request(`/events/${SCORED.id}`, { headers: HTML })).text();
  const hours = [0, 1, 2];
  const noAt = (h: number) => (1 - yesPriceAt(h)).toFixed(3);
  assert.deepEqual(chartPoints(html), [
    ...hours.map((h) => `Market: No ${utcHour(BASE + h * HOUR)} ${noAt(h)}`),
    ...hours.map((h) => `Consensus: No ${utcHour(BASE + h * HOUR)} ${(1 - CONSENSUS_YES).toFixed(3)}`),
  ]);
  assert.match(html, /<title id="price-history-title">Probability of “No”<\/title>/);
  assert.match(html, /<th scope="col" class="num">Forecast of “No”<\/th>/);
  assert.match(html, /<dd>No won.<\/dd>/);
});

Deno.test("the event's source link is Polymarket's record of the market, a plain link", async () => {
  await using service = await eventWorld();
  const html = await (await service.request(`/events/${OPEN.id}`, { headers: HTML })).text();
  assert.match(
    html,
    /<a href="https:\/\/gamma-api.polymarket.com\/markets\/12" rel="external noopener noreferrer">/,
  );
  assert.doesNotMatch(html, /(src)="https?:/);
});

Deno.test("an unknown event is a 404 page (the JSON 404 for a JSON client); a query parameter is a 400 page naming it", async () => {
  await using service = await eventWorld();
  for (const id of ["polymarket-999", "bad%20id"]) {
    const page = await service.request(`/events/${id}`, { headers: HTML });
    assert.equal(page.status, 404, id);
    assert.match(await page.text(), /<h1 data-error-code="not_found">Not found<\/h1>/);
  }
  const api = await service.request("/events/polymarket-999", { headers: { accept: "application/json" } });
  assert.equal(api.status, 404);
  assert.equal((await api.json()).error.code, "not_found");
  const bad = await service.request(`/events/${OPEN.id}?days=30`, { headers: HTML });
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /<code>days<\/code>/);
});
