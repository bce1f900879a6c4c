import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { acceptsGzip } from "../../routes/pages/kit/page_bytes.ts";
import { LineChart } from "../../routes/pages/charts/line_chart.tsx";
import { htmlOf } from "../../routes/pages/kit/render.ts";
import { PAGE_PATHS } from "../../routes/pages/pages.ts";
import { openTestService } from "../support/test_service.ts";

const HTML = { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8" };

Deno.test("every page path answers with the page headers: a CSP without unsafe-inline, nosniff, same-origin referrer", async () => {
  await using service = await openTestService({});
  for (const path of PAGE_PATHS.filter((p) => !p.includes(":"))) {
    const response = await service.request(path, { headers: HTML });
    await response.body?.cancel();
    assert.equal(response.status, 200, path);
    const csp = response.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'self'/, path);
    assert.match(csp, /frame-ancestors 'none'/, path);
    assert.doesNotMatch(csp, /unsafe-inline/, path);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff", path);
    assert.equal(response.headers.get("referrer-policy"), "same-origin", path);
  }
});

Deno.test("an unknown path is a 404 page for a browser and the JSON error body for an API client", async () => {
  await using service = await openTestService({});
  const page = await service.request("/no/such/page", { headers: HTML });
  assert.equal(page.status, 404);
  assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
  const html = await page.text();
  assert.match(html, /<h1 data-error-code="not_found">Not found<\/h1>/);
  assert.match(html, /Nothing is served at \/no\/such\/page/);
  const api = await service.request("/no/such/page", { headers: { accept: "application/json" } });
  assert.equal(api.status, 404);
  assert.equal((await api.json()).error.code, "not_found");
});

Deno.test("a page has no inline style or script and links only same-origin assets", async () => {
  await using service = await openTestService({});
  const html = await (await service.request("/", { headers: HTML })).text();
  assert.doesNotMatch(html, /style=/);
  assert.doesNotMatch(html, /<script/);
  assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//);
  assert.match(html, /<link rel="stylesheet" href="\/assets\/site.css"/);
});

Deno.test("a line chart draws one marker per point with its data, a title, a description and the data table", async () => {
  const day = 86_400_000;
  const html = await htmlOf(
    <LineChart
      id="brier"
      title="Brier over time"
      description="Weekly mean Brier."
      series={[
        { name: "Miner", points: [{ x: 0, y: 0.2 }, { x: 7 * day, y: 0.15 }, { x: 14 * day, y: 0.1 }] },
        { name: "Market", points: [{ x: 0, y: 0.25 }, { x: 14 * day, y: 0.2 }] },
      ]}
      xLabel="Week"
      yLabel="Brier"
      formatX={(x) => new Date(x).toISOString().slice(0, 10)}
      formatY={(y) => y.toFixed(2)}
      yDomain={[0, 0.5]}
    />,
  );
  const points = [...html.matchAll(/class="point" data-series="([^"]+)" data-x="([^"]+)" data-y="([^"]+)"/g)]
    .map((m) => `${m[1]} ${m[2]} ${m[3]}`);
  assert.deepEqual(points, [
    "Miner 1970-01-01 0.20",
    "Miner 1970-01-08 0.15",
    "Miner 1970-01-15 0.10",
    "Market 1970-01-01 0.25",
    "Market 1970-01-15 0.20",
  ]);
  assert.match(html, /<title id="brier-title">Brier over time<\/title>/);
  assert.match(html, /<desc id="brier-desc">Weekly mean Brier.<\/desc>/);
  assert.match(html, /<th scope="row">1970-01-08<\/th><td class="num">0.15<\/td><td class="num">—<\/td>/);
  assert.doesNotMatch(html, /style=/);
});

Deno.test("a page is sent gzip to a client that accepts it, the same document as sent plain", async () => {
  await using service = await openTestService({});
  const plain = await service.request("/", { headers: { ...HTML, "accept-encoding": "identity" } });
  assert.equal(plain.headers.get("content-encoding"), null);
  assert.equal(plain.headers.get("vary"), "Accept-Encoding");
  const text = await plain.text();
  assert.ok(text.startsWith("<!DOCTYPE html><html"));
  const gzip = await service.request("/", { headers: { ...HTML, "accept-encoding": "gzip, deflate, br" } });
  assert.equal(gzip.headers.get("content-encoding"), "gzip");
  assert.equal(gzip.headers.get("vary"), "Accept-Encoding");
  const bytes = new Uint8Array(await gzip.arrayBuffer());
  assert.equal(new TextDecoder().decode(gunzipSync(bytes)), text);
  const refused = await service.request("/", { headers: { ...HTML, "accept-encoding": "gzip;q=0" } });
  assert.equal(refused.headers.get("content-encoding"), null);
  await refused.body?.cancel();
});

Deno.test("Accept-Encoding: gzip and * are accepted unless q=0", () => {
  assert.equal(acceptsGzip(undefined), false);
  assert.equal(acceptsGzip("br"), false);
  assert.equal(acceptsGzip("gzip, deflate, br, zstd"), true);
  assert.equal(acceptsGzip("*"), true);
  assert.equal(acceptsGzip("GZIP;q=0.5"), true);
  assert.equal(acceptsGzip("gzip;q=0"), false);
});
