/** Load generation for benchmarks: `wrk` (Debian package) in a separate process. */
import postgres from "postgres";

export interface LoadResult {
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

export interface LoadOptions {
  connections?: number;
  seconds?: number;
  threads?: number;
  headers?: Record<string, string>;
  /** A wrk Lua script (e.g. a POST body, or a header that changes per request). */
  script?: string;
}

/** Makes sure `wrk` is installed (installs the Debian package when missing and running as root). */
export async function ensureWrk(): Promise<void> {
  if (await installed("wrk")) return;
  console.error("wrk is missing: installing the Debian package");
  await run("apt-get", ["update", "-qq"]);
  await run("apt-get", ["install", "-y", "-qq", "wrk"]);
}

/**
 * Pins this process (every thread) to CPU 0 so that wrk, pinned to CPU 1, never competes with
 * the server under test for a core: on a 2-core machine that contention otherwise swings
 * results by a third from run to run. Without `taskset` (util-linux) nothing is pinned.
 */
export function pinServerCpu(): Promise<boolean> {
  return pinToCpu(Deno.pid, 0);
}

/** Pins process `pid` (every thread) to `cpu` with `taskset`; false when that is not possible. */
export async function pinToCpu(pid: number, cpu: number): Promise<boolean> {
  try {
    const pinned = await new Deno.Command("taskset", {
      args: ["-a", "-p", "-c", String(cpu), String(pid)],
      stdout: "null",
      stderr: "null",
    }).output();
    return pinned.success;
  } catch {
    return false;
  }
}

/**
 * Pins the PostgreSQL backends serving `databaseUrl`'s database to `cpu` (default 1, beside the
 * load generator), so that the service has CPU 0 to itself, as it would with the database on its
 * own host; returns how many.
 */
export async function pinDatabase(databaseUrl: string, cpu = 1): Promise<number> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ pid: number }[]>`SELECT pid FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()`;
    const pinned = await Promise.all(rows.map((row) => pinToCpu(row.pid, cpu)));
    return pinned.filter(Boolean).length;
  } finally {
    await sql.end();
  }
}

/** Runs wrk (pinned to CPU 1 when `taskset` exists) against `url`; parses throughput and latencies. */
export async function loadTest(label: string, url: string, options: LoadOptions = {}): Promise<LoadResult> {
  const args = [
    `-t${options.threads ?? 1}`,
    `-c${options.connections ?? 64}`,
    `-d${options.seconds ?? 10}s`,
    "--latency",
    ...(options.script ? ["-s", options.script] : []),
    ...Object.entries(options.headers ?? {}).flatMap(([name, value]) => ["-H", `${name}: ${value}`]),
    url,
  ];
  const output = await installed("taskset")
    ? await run("taskset", ["-c", "1", "wrk", ...args])
    : await run("wrk", args);
  return {
    label,
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0),
    p50Ms: latencyMs(output, "50%"),
    p99Ms: latencyMs(output, "99%"),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0),
  };
}

/** Prints results as an aligned table, with each row's share of the first row's requests/s. */
export function printTable(title: string, rows: readonly LoadResult[]): void {
  const base = rows[0]?.requestsPerSecond ?? 1;
  console.log(`\n${title}`);
  console.log("| run | req/s | p50 ms | p99 ms | non-2xx | vs first |\n|---|---:|---:|---:|---:|---:|");
  for (const row of rows) {
    const share = ((row.requestsPerSecond / base) * 100).toFixed(1);
    console.log(
      `| ${row.label} | ${row.requestsPerSecond.toFixed(0)} | ${row.p50Ms.toFixed(2)} | ${
        row.p99Ms.toFixed(2)
      } | ${row.non2xx} | ${share} % |`,
    );
  }
}

function latencyMs(output: string, percentile: string): number {
  const match = new RegExp(`^\\s+${percentile}\\s+([\\d.]+)(us|ms|s)`, "m").exec(output);
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

async function run(command: string, args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(stdout);
  if (code !== 0) throw new Error(`${command} failed: ${new TextDecoder().decode(stderr)}${text}`);
  return text;
}

/** True when `command` can be spawned (wrk exits non-zero even for `--version`). */
async function installed(command: string): Promise<boolean> {
  try {
    await new Deno.Command(command, { args: ["--version"], stdout: "null", stderr: "null" }).output();
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** The run with the median requests/s (with its own latency figures), under `label` when given. */
export function medianRun(runs: readonly LoadResult[], label?: string): LoadResult {
  const sorted = runs.toSorted((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const middle = sorted[Math.floor(sorted.length / 2)]!;
  return label === undefined ? middle : { ...middle, label };
}

/** `POST base+path` with the admin token and a JSON body; its JSON answer, or an Error naming the path. */
export async function adminPost(
  base: string,
  token: string,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json;
}
