import assert from "node:assert/strict";
import {
  fillPaths,
  median,
  medianOfRounds,
  medianRatio,
  sameOriginAssets,
  weightTotal,
} from "../../../scripts/bench/world/page_figures.ts";
import type { LoadResult } from "../../../scripts/bench/world/load.ts";

function round(requestsPerSecond: number, p50Ms = 1, p99Ms = 5, non2xx = 0): LoadResult {
  return { label: "run", requestsPerSecond, p50Ms, p99Ms, non2xx };
}

Deno.test("median takes the middle value, the mean of the middle two for an even count, NaN for none", () => {
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([7]), 7);
  assert.ok(Number.isNaN(median([])));
});

Deno.test("each figure of the rounds is its own median; non-2xx answers are summed", () => {
  const rounds = [round(100, 2, 9), round(300, 1, 30, 2), round(200, 3, 10)];
  assert.deepEqual(medianOfRounds("page", rounds), {
    label: "page",
    requestsPerSecond: 200,
    p50Ms: 2,
    p99Ms: 10,
    non2xx: 2,
  });
});

Deno.test("the HTML/JSON ratio is the median of the per-round ratios, and rounds must pair up", () => {
  const html = [round(80), round(90), round(50)];
  const json = [round(100), round(100), round(100)];
  assert.equal(medianRatio(html, json), 0.8);
  // Per round 0.5, 0.5 and 0.9: the median is 0.5, where the ratio of the medians would be 90 / 100.
  assert.equal(medianRatio([round(50), round(200), round(90)], [round(100), round(400), round(100)]), 0.5);
  assert.throws(() => medianRatio([round(1)], []), RangeError);
});

Deno.test("a page's weight is the sum of its parts' gzip sizes", () => {
  assert.equal(
    weightTotal([{ path: "/", gzipBytes: 700 }, { path: "/assets/site.css", gzipBytes: 1_900 }]),
    2_600,
  );
  assert.equal(weightTotal([]), 0);
});

Deno.test("a document's same-origin assets are its stylesheets, icons and sources, once each, no other host", () => {
  const html = `<html><head><link rel="stylesheet" href="/assets/site.css" />` +
    `<link rel="icon" href="/favicon.svg" type="image/svg+xml" /><link rel="canonical" href="/leaderboard" />` +
    `<link rel="stylesheet" href="https://cdn.example.com/x.css" /><link rel="stylesheet" href="//cdn.example.com/y.css" />` +
    `</head><body><a href="/events">Events</a><img src="/chart.svg" alt="" /><script src="/assets/site.css"></script>` +
    `</body></html>`;
  assert.deepEqual(sameOriginAssets(html), ["/assets/site.css", "/favicon.svg", "/chart.svg"]);
});

Deno.test("a page path is filled once per sample of each parameter, and not at all without one", () => {
  assert.deepEqual(fillPaths("/methodology", {}), ["/methodology"]);
  assert.deepEqual(fillPaths("/events/:id", { id: ["polymarket-1", "bench-000001", "polymarket-1"] }), [
    "/events/polymarket-1",
    "/events/bench-000001",
  ]);
  assert.deepEqual(fillPaths("/miners/:hotkey", { hotkey: ["a/b"] }), ["/miners/a%2Fb"]);
  assert.deepEqual(fillPaths("/miners/:hotkey", { id: ["x"] }), []);
});
