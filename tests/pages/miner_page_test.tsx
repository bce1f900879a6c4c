import assert from "node:assert/strict";
import { ReliabilityChart } from "../../routes/pages/charts/reliability_chart.tsx";
import { htmlOf } from "../../routes/pages/kit/render.ts";
import { minerHotkey } from "../support/assignments.ts";
import type { TestService } from "../support/test_service.ts";
import { MINER, minerWorld, UPLOADER, WEEK_1, WEEK_2, WEEK_3 } from "../scoring/miner_world.ts";

const HTML = { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8" };
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Each chart point as "series x y [bin count]", in document order. */
function points(html: string): string[] {
  return [
    ...html.matchAll(
      /class="point" data-series="([^"]+)" data-x="([^"]+)" data-y="([^"]+)"(?: data-bin="([^"]+)" data-count="(\d+)")?/g,
    ),
  ]
    .map((m) => m.slice(1).filter((part) => part !== undefined).join(" "));
}

async function page(service: TestService, path: string) {
  const response = await service.request(path, { headers: HTML });
  return { status: response.status, type: response.headers.get("content-type"), html: await response.text() };
}

Deno.test("the miner page shows its standing explained, its scored events linked to their pages, and its agent versions", async () => {
  await using service = await minerWorld();
  const response = await service.request(`/miners/${MINER}`, { headers: HTML });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
  assert.doesNotMatch(response.headers.get("content-security-policy") ?? "", /unsafe-inline/);
  const html = await response.text();
  assert.match(html, new RegExp(`<h1>Miner <code class="hotkey">${MINER}</code></h1>`));
  assert.match(html, /Figures computed <time datetime="[^"]+">[^<]+<\/time>, over the 30 days to/);
  assert.match(html, /<dt>Rank<\/dt><dd>1 of 2<\/dd>/);
  assert.match(html, /Mean Brier 0\.220500 <span class="muted">\(95 % interval 0\.005 to 0\.436, 5 events\)/);
  assert.match(html, /<dt>Gate <code>pass<\/code><\/dt>/);
  assert.match(html, /<caption>6 scored events, newest first.<\/caption>/);
  const rows = [...html.matchAll(/<tr data-event="([^"]+)">/g)].map((m) => m[1]);
  assert.deepEqual(rows, [6, 5, 4, 3, 2, 1].map((n) => `polymarket-${n}`));
  assert.match(
    html,
    new RegExp(
      '<tr data-event="polymarket-3"><td class="wrap"><a href="/events/polymarket-3">Will polymarket-3 happen\\?</a></td>' +
        '<td>[^<]+ UTC</td><td>Yes</td><td class="num">0.200</td><td class="num">0.400</td>' +
        '<td class="num">0.6400</td><td class="num">0.3600</td></tr>',
    ),
  );
  assert.match(html, /<tr data-event="polymarket-6">.*?<span class="tag">invalid<\/span>/);
  const versions = [...html.matchAll(/<tr data-version="([^"]+)">.*?<td>(current)?<\/td><\/tr>/g)].map((m) =>
    `${m[1]} ${m[2] ?? ""}`.trim()
  );
  assert.deepEqual(versions, ["agv_second current", "agv_first"]);
  assert.ok(!html.includes("agent_main"), "never the agent's code");
  assert.doesNotMatch(html, /style=/);
  assert.doesNotMatch(html, /<script/);
});

Deno.test("the miner page's charts carry the known data set's points: weekly Brier beside the market's, reliability bins with counts", async () => {
  await using service = await minerWorld();
  const html = await (await service.request(`/miners/${MINER}`, { headers: HTML })).text();
  assert.deepEqual(points(html), [
    `This miner ${day(WEEK_1)} 0.050`,
    `This miner ${day(WEEK_2)} 0.400`,
    `This miner ${day(WEEK_3)} 0.203`,
    `Market ${day(WEEK_1)} 0.360`,
    `Market ${day(WEEK_2)} 0.360`,
    `Market ${day(WEEK_3)} 0.360`,
    "This miner 0.550 1.000 0.5–0.6 1",
    "This miner 0.600 1.000 0.6–0.7 1",
    "This miner 0.700 1.000 0.7–0.8 1",
    "This miner 0.800 0.000 0.8–0.9 1",
    "This miner 0.900 1.000 0.9–1.0 1",
  ]);
  const bars = [...html.matchAll(/<rect class="bar"[^>]* data-bin="([^"]+)" data-count="(\d+)"/g)].map((m) =>
    m[2]
  );
  assert.deepEqual(bars, ["0", "0", "0", "0", "0", "1", "1", "1", "1", "1"]);
  assert.match(html, /<title id="brier-over-time-title">Brier over time<\/title>/);
  assert.match(html, /<title id="reliability-title">Reliability diagram<\/title>/);
  assert.match(
    html,
    /<th scope="row">0\.8–0\.9<\/th><td class="num">1<\/td><td class="num">0\.800<\/td><td class="num">0\.000<\/td>/,
  );
});

Deno.test("a miner with nothing scored yet: the sections say why and what to run", async () => {
  await using service = await minerWorld();
  const { status, html } = await page(service, `/miners/${UPLOADER}`);
  assert.equal(status, 200);
  assert.match(html, /Not on the leaderboard now/);
  assert.equal([...html.matchAll(/No scored events in the window yet/g)].length, 3);
  assert.match(html, /task demo/);
  assert.doesNotMatch(html, /class="point"/);
  assert.match(html, /<tr data-version="agv_only">/);
});

Deno.test("an unknown miner is a 404 page, a malformed hotkey a 400 page naming it, and JSON errors for an API client", async () => {
  await using service = await minerWorld();
  const unknown = await page(service, `/miners/${minerHotkey(9)}`);
  assert.equal(unknown.status, 404);
  assert.match(unknown.type ?? "", /^text\/html/);
  assert.match(unknown.html, /<h1 data-error-code="not_found">Not found<\/h1>/);
  assert.match(unknown.html, /No such miner/);
  const malformed = await page(service, "/miners/not-a-hotkey");
  assert.equal(malformed.status, 400);
  assert.match(
    malformed.html,
    /<li><code>hotkey<\/code>: must be an SS58 address \(checksum included\)<\/li>/,
  );
  const query = await page(service, `/miners/${MINER}?sort=brier`);
  assert.equal(query.status, 400);
  assert.match(query.html, /<li><code>sort<\/code>:/);
  const json = await service.request("/miners/not-a-hotkey", { headers: { accept: "application/json" } });
  assert.equal(json.status, 400);
  assert.deepEqual((await json.json()).error.details.fields.map((f: { field: string }) => f.field), [
    "hotkey",
  ]);
});

Deno.test("a reliability chart: one point per non-empty bin with its count, bars for every bin, the diagonal, a legend and the data table", async () => {
  const html = await htmlOf(
    <ReliabilityChart
      id="rel"
      title="Reliability"
      description="Observed frequency against mean forecast."
      series="Miner"
      bins={[
        { bin: 0, count: 0, meanForecast: null, observedFrequency: null },
        { bin: 2, count: 4, meanForecast: 0.25, observedFrequency: 0.5 },
        { bin: 9, count: 2, meanForecast: 0.99, observedFrequency: 1 },
      ]}
    />,
  );
  assert.deepEqual(points(html), ["Miner 0.250 0.500 0.2–0.3 4", "Miner 0.990 1.000 0.9–1.0 2"]);
  // Each bar has its count written over it; the points carry theirs in data-count.
  assert.deepEqual(
    [...html.matchAll(/<text x="[\d.]+" y="[\d.]+" text-anchor="middle">(\d+)<\/text>/g)].map((m) => m[1]),
    [
      "0",
      "4",
      "2",
    ],
  );
  assert.deepEqual([...html.matchAll(/<rect class="bar"[^>]*data-count="(\d+)"/g)].map((m) => m[1]), [
    "0",
    "4",
    "2",
  ]);
  // The bar of the fullest bin is the strip's full height (42); the empty bin's is 0.
  assert.match(
    html,
    /<rect class="bar" x="[^"]+" y="254" width="[^"]+" height="42"[^>]*data-bin="0\.2–0\.3"/,
  );
  assert.match(html, /<line class="diagonal" x1="64" y1="232" x2="460" y2="12"/);
  assert.match(html, /<title id="rel-title">Reliability<\/title>/);
  assert.match(html, /<desc id="rel-desc">Observed frequency against mean forecast.<\/desc>/);
  assert.match(html, /Perfect calibration/);
  assert.match(
    html,
    /<th scope="row">0\.0–0\.1<\/th><td class="num">0<\/td><td class="num">—<\/td><td class="num">—<\/td>/,
  );
  assert.doesNotMatch(html, /style=/);
});
