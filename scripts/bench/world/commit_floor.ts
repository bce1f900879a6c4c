/**
 * A reference for latency benchmarks: what `commits` durable commits one after another cost on a
 * PostgreSQL server right now. Each commit inserts one small row into an ordinary (WAL-logged)
 * table of a scratch database and waits for the WAL flush, as the service's own writes do. A paid
 * gateway call needs at least two (the hold before the upstream call, the settlement after it), so
 * their sum is a floor under its added latency that no code change in the service can go below.
 */
import postgres from "postgres";
import { withScratchDatabase } from "./scratch_database.ts";

export interface CommitFloor {
  /** Median and 99th percentile, in ms, of `commits` sequential durable commits. */
  p50Ms: number;
  p99Ms: number;
  samples: number;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** Runs `samples` sequences of `commits` commits, `gapMs` apart, on a scratch database. */
export function measureCommitFloor(
  serverUrl: string,
  options: { commits: number; samples: number; gapMs: number },
): Promise<CommitFloor> {
  return withScratchDatabase(serverUrl, async (url) => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await sql`CREATE TABLE floor_rows (id bigserial PRIMARY KEY, note text NOT NULL)`;
      const times: number[] = [];
      for (let sample = 0; sample < options.samples; sample++) {
        const started = performance.now();
        for (let commit = 0; commit < options.commits; commit++) {
          await sql.begin((tx) => tx`INSERT INTO floor_rows (note) VALUES (${`s${sample}c${commit}`})`);
        }
        times.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, options.gapMs));
      }
      const sorted = times.toSorted((a, b) => a - b);
      return { p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99), samples: sorted.length };
    } finally {
      await sql.end();
    }
  });
}

if (import.meta.main) {
  const serverUrl = Deno.env.get("DATABASE_URL");
  if (!serverUrl) throw new Error("Needs DATABASE_URL (a PostgreSQL server)");
  for (const commits of [1, 2]) {
    const floor = await measureCommitFloor(serverUrl, { commits, samples: 300, gapMs: 5 });
    console.log(
      `${commits} durable commit(s): p50 ${floor.p50Ms.toFixed(2)} ms, p99 ${floor.p99Ms.toFixed(2)} ms`,
    );
  }
}
