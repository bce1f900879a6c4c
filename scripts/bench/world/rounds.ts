/** What benchmarks share around wrk runs: the ceiling server and alternating rounds with medians. */
import { Hono } from "hono";
import { type LoadOptions, type LoadResult, loadTest, medianRun } from "./load.ts";

/** One thing a benchmark loads: its row label, its URL and wrk's options but the duration. */
export interface LoadRun {
  label: string;
  url: string;
  options?: Omit<LoadOptions, "seconds">;
}

/**
 * A minimal Hono app answering every path with the bytes (and content type) `url` answered: the
 * ceiling a route is compared with. Its URL is `url` with the ceiling's port.
 */
export async function ceilingFor(
  url: string,
): Promise<{ url: string; bytes: number; close: () => Promise<void> }> {
  const response = await fetch(url);
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "application/json";
  const app = new Hono().get("*", (c) => c.body(text, 200, { "Content-Type": type }));
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
  const target = new URL(url);
  target.port = String(server.addr.port);
  return { url: target.toString(), bytes: text.length, close: () => server.shutdown() };
}

/**
 * Each run warmed up for 2 s, then `rounds` rounds of `seconds` each, the runs alternating within a
 * round (drift on a shared host hits them alike). Every round's result, and each run's median round.
 */
export async function alternatingRounds(
  runs: readonly LoadRun[],
  { rounds, seconds }: { rounds: number; seconds: number },
): Promise<{ every: LoadResult[]; medians: LoadResult[] }> {
  for (const run of runs) await loadTest("warm-up", run.url, { ...run.options, seconds: 2 });
  const results: LoadResult[][] = runs.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, run] of runs.entries()) {
      results[i]!.push(await loadTest(run.label, run.url, { ...run.options, seconds }));
    }
  }
  return { every: results.flat(), medians: results.map((each) => medianRun(each)) };
}
