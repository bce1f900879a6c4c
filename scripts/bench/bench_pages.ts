/**
 * Benchmark (`deno task bench:pages`): the web pages against their JSON routes, on the full data
 * set of the other benchmarks (`world/pages_world.ts`: 256 scored miners over 1,000,000
 * predictions, 20,000 live events), in the same run:
 *
 * 1. `/leaderboard` beside `GET /v1/leaderboard` and `/events` beside `GET /v1/events`, 64
 *    connections from wrk, each request asking for gzip as a browser does; warmed up, then
 *    alternating rounds (HTML, JSON, HTML, JSON…). Each figure is its median round; the ratio is
 *    the median of the per-round HTML/JSON ratios. Targets: ≥ 80 % of the JSON route's requests/s,
 *    p99 < 20 ms. A page not served yet is reported as such (its JSON route is still measured).
 * 2. Each page's weight: the gzip total of its document and its same-origin assets (`/docs`
 *    excluded). Target: under 100 KB.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test deno task bench:pages
 *   BENCH_EVENTS (20000 resolved; 2000 for a tenth), BENCH_LIVE_EVENTS (20000), BENCH_SECONDS (5),
 *   BENCH_ROUNDS (5)
 *
 * The run exits 1 when a served page or route answers anything but 2xx under load.
 */
import { PAGE_PATHS } from "../../routes/pages/pages.ts";
import { ASSET_PATHS } from "../../routes/pages/assets/asset_routes.ts";
import { ensureWrk, type LoadResult, loadTest, pinServerCpu, printTable } from "./world/load.ts";
import { withScratchDatabase } from "./world/scratch_database.ts";
import { openPagesWorld } from "./world/pages_world.ts";
import type { WorldSize } from "./world/scoring_world.ts";
import {
  fillPaths,
  medianOfRounds,
  medianRatio,
  P99_TARGET_MS,
  RATIO_TARGET,
  verdict,
  WEIGHT_TARGET_BYTES,
} from "./world/page_figures.ts";
import { BROWSER_HTML, BROWSER_JSON, pageWeight, rawGet } from "./world/page_weight.ts";

const SIZE: WorldSize = { events: Number(Deno.env.get("BENCH_EVENTS") ?? 20_000), miners: 256, perEvent: 50 };
const LIVE_EVENTS = Number(Deno.env.get("BENCH_LIVE_EVENTS") ?? 20_000);
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 5);
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 5);

/** Each page and its JSON route (their default queries). */
const PAIRS = [
  { page: "/leaderboard", json: "/v1/leaderboard" },
  // The page's default is the whole board; its JSON link (the same view) asks for all of it too.
  { page: "/leaderboard", json: "/v1/leaderboard?limit=256" },
  { page: "/events", json: "/v1/events" },
] as const;

/** The public pages of the service, whether served yet or not (the page table adds any new one). */
const PUBLIC_PAGES = [
  "/",
  "/leaderboard",
  "/miners/:hotkey",
  "/events",
  "/events/:id",
  "/scored",
  "/methodology",
];

interface PairRounds {
  pageStatus: number;
  html: LoadResult[];
  json: LoadResult[];
}

/** Warm-up, then `ROUNDS` rounds of the page then its JSON route (the page only when it is served). */
async function measurePair(base: string, pair: (typeof PAIRS)[number]): Promise<PairRounds> {
  const pageStatus = (await rawGet(`${base}${pair.page}`, BROWSER_HTML)).status;
  const runs = [
    ...(pageStatus === 200
      ? [{ label: `${pair.page} (HTML)`, url: `${base}${pair.page}`, headers: BROWSER_HTML }]
      : []),
    { label: `${pair.json} (JSON)`, url: `${base}${pair.json}`, headers: BROWSER_JSON },
  ];
  for (const run of runs) await loadTest("warm-up", run.url, { headers: run.headers, seconds: 2 });
  const rounds: LoadResult[][] = runs.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, run] of runs.entries()) {
      rounds[i]!.push(await loadTest(run.label, run.url, { headers: run.headers, seconds: SECONDS }));
    }
  }
  return pageStatus === 200
    ? { pageStatus, html: rounds[0]!, json: rounds[1]! }
    : { pageStatus, html: [], json: rounds[0]! };
}

/** Prints a pair's medians and targets; false when a run saw a non-2xx answer. */
function reportPair(pair: (typeof PAIRS)[number], rounds: PairRounds): boolean {
  const json = medianOfRounds(`${pair.json} (JSON)`, rounds.json);
  const title =
    `${pair.page} against ${pair.json} — median of ${ROUNDS} alternating ${SECONDS}s rounds, 64 connections`;
  if (rounds.html.length === 0) {
    printTable(title, [json]);
    console.log(`${pair.page}: page not served (${rounds.pageStatus}); no ratio`);
    return json.non2xx === 0;
  }
  const html = medianOfRounds(`${pair.page} (HTML)`, rounds.html);
  printTable(title, [json, html]);
  const ratio = medianRatio(rounds.html, rounds.json);
  const perRound = rounds.html.map((h, i) =>
    (100 * h.requestsPerSecond / rounds.json[i]!.requestsPerSecond).toFixed(1)
  );
  console.log(
    `${pair.page}: HTML/JSON ${(100 * ratio).toFixed(1)} % (rounds: ${perRound.join(", ")} %) — target ≥ ${
      100 * RATIO_TARGET
    } %: ${verdict(ratio >= RATIO_TARGET)}; HTML p99 ${
      html.p99Ms.toFixed(2)
    } ms — target < ${P99_TARGET_MS} ms: ${verdict(html.p99Ms < P99_TARGET_MS)}`,
  );
  return html.non2xx === 0 && json.non2xx === 0;
}

/** Whether the service gzips what it sends, for a page and a JSON route. */
async function reportCompression(base: string): Promise<void> {
  const answers = [
    ["/v1/events", await rawGet(`${base}/v1/events`, BROWSER_JSON)],
    ["/methodology", await rawGet(`${base}/methodology`, BROWSER_HTML)],
  ] as const;
  for (const [path, answer] of answers) {
    console.log(
      answer.contentEncoding
        ? `${path}: sent ${answer.contentEncoding}-encoded (${answer.sent.length} bytes)`
        : `${path}: sent uncompressed (${answer.sent.length} bytes) although the client asks for gzip`,
    );
  }
  if (answers.every(([, answer]) => answer.contentEncoding === null)) {
    console.log(
      "the service does not compress HTML or JSON: wrk's figures are for the uncompressed bytes it sends",
    );
  }
}

/** Sample values of the page paths' parameters: the top miner; an open event and a scored one. */
async function samples(base: string): Promise<Record<string, string[]>> {
  const board = await (await fetch(`${base}/v1/leaderboard?limit=1`)).json();
  const live = await (await fetch(`${base}/v1/events?limit=1&status=unresolved`)).json();
  const scored = await (await fetch(`${base}/v1/events/scored?limit=1`)).json();
  const defined = (values: unknown[]) => values.filter((value): value is string => typeof value === "string");
  return {
    hotkey: defined([board.neurons?.[0]?.hotkey]),
    id: defined([live.items?.[0]?.id, scored.items?.[0]?.eventId]),
  };
}

/** The weight of every public page (a path with parameters once per sample), against its target. */
async function reportWeights(base: string): Promise<void> {
  const assets = new Set<string>(ASSET_PATHS);
  const patterns = [...new Set([...PUBLIC_PAGES, ...PAGE_PATHS])]
    .filter((path) => !assets.has(path) && path !== "/docs" && !path.startsWith("/dashboard"));
  const sampled = await samples(base);
  console.log(
    `\npage weight: gzip total of the document and its same-origin assets (target < ${
      WEIGHT_TARGET_BYTES / 1000
    } KB)`,
  );
  console.log(
    "| page | sent bytes | gzip: document | gzip: assets | total | target |\n|---|---:|---:|---:|---:|---|",
  );
  for (const pattern of patterns) {
    const paths = fillPaths(pattern, sampled);
    if (paths.length === 0) console.log(`| ${pattern} | no sample for its parameters | — | — | — | — |`);
    for (const path of paths) console.log(await weightRow(base, path));
  }
}

/** One row of the weight table. */
async function weightRow(base: string, path: string): Promise<string> {
  const weight = await pageWeight(base, path);
  if (weight.status !== 200) return `| ${path} | page not served (${weight.status}) | — | — | — | — |`;
  const [document, ...assets] = weight.parts;
  const assetBytes = assets.reduce((sum, part) => sum + part.gzipBytes, 0);
  const names = assets.map((part) => part.path).join(", ");
  return `| ${path} | ${weight.sentBytes} | ${
    document!.gzipBytes
  } | ${assetBytes} (${names}) | ${weight.total} | ${verdict(weight.total < WEIGHT_TARGET_BYTES)} |`;
}

async function main(): Promise<void> {
  const serverUrl = Deno.env.get("DATABASE_URL");
  if (!serverUrl) throw new Error("bench:pages needs DATABASE_URL (a PostgreSQL server)");
  await ensureWrk();
  if (ROUNDS < 5) console.log(`note: ${ROUNDS} rounds (the figures need at least 5)`);
  await withScratchDatabase(serverUrl, async (url) => {
    const world = await openPagesWorld(url, { size: SIZE, liveEvents: LIVE_EVENTS });
    try {
      console.log(
        `world: ${SIZE.events} resolved events × ${SIZE.perEvent} = ${
          SIZE.events * SIZE.perEvent
        } predictions, ` +
          `${SIZE.miners} miners, ${LIVE_EVENTS} live events; seeded in ${
            (world.seedMs / 1000).toFixed(1)
          } s, ` +
          `scored in ${(world.scoreMs / 1000).toFixed(1)} s`,
      );
      const pinned = await pinServerCpu();
      console.log(
        pinned ? "server pinned to CPU 0, wrk (1 thread) to CPU 1" : "taskset missing: nothing pinned",
      );
      await reportCompression(world.base);
      let clean = true;
      for (const pair of PAIRS) clean = reportPair(pair, await measurePair(world.base, pair)) && clean;
      await reportWeights(world.base);
      if (!clean) {
        console.error("non-2xx answers under load (see the tables)");
        Deno.exitCode = 1;
      }
    } finally {
      await world.close();
    }
  });
}

if (import.meta.main) await main();
