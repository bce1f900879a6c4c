/**
 * An open-loop load generator for `deno task bench:gateway`: POSTs `body` to `url` at a fixed rate,
 * one request every 1000 / `rate` ms whatever the answers do (requests are not held back by slow
 * ones), the `authorization` taken in turn from `keys`. Each latency is measured from the instant
 * the request was due, so a late send counts against the target too (no coordinated omission).
 * The first second warms up and is not recorded. Settings come as JSON in `FGW_BENCH_PACED`;
 * prints one JSON line: `{ requests, p50, p99, non2xx, errors }` (ms).
 *
 *   FGW_BENCH_PACED='{"url":"…","rate":200,"seconds":8,"body":"{…}","keys":["Bearer …"]}' \
 *     deno run --allow-net --allow-env scripts/bench/world/paced.ts
 */
interface Settings {
  url: string;
  rate: number;
  seconds: number;
  /** The JSON body, as text. */
  body: string;
  /** Whole `authorization` header values. */
  keys: string[];
}

const WARM_UP_MS = 1_000;

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

async function send(settings: Settings, i: number): Promise<{ ok: boolean }> {
  const response = await fetch(settings.url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: settings.keys[i % settings.keys.length]! },
    body: settings.body,
  });
  await response.arrayBuffer();
  return { ok: response.status >= 200 && response.status < 300 };
}

async function run(settings: Settings): Promise<void> {
  const intervalMs = 1_000 / settings.rate;
  const total = Math.round((WARM_UP_MS / 1_000 + settings.seconds) * settings.rate);
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now() + 50;
  for (let i = 0; i < total; i++) {
    const due = start + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const recorded = due - start >= WARM_UP_MS;
    inFlight.push(
      send(settings, i).then(({ ok }) => {
        if (!recorded) return;
        latencies.push(performance.now() - due);
        if (!ok) non2xx++;
      }, () => {
        if (recorded) errors++;
      }),
    );
  }
  await Promise.all(inFlight);
  latencies.sort((a, b) => a - b);
  const result = {
    requests: latencies.length,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    non2xx,
    errors,
  };
  console.log(JSON.stringify(result));
}

await run(JSON.parse(Deno.env.get("FGW_BENCH_PACED") ?? "{}"));
