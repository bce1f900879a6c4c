/**
 * What `deno task bench:gateway` runs against: the mock OpenAI-compatible provider (its own Deno
 * process), the Portkey open-source gateway (its own Node process, installed with npm in a
 * directory outside the repository), a paced generator for fixed-rate latency (`paced.ts`),
 * and wrk Lua scripts.
 */
import { pinToCpu } from "./load.ts";

/** npm packages installed outside the repository, once (reused by later runs). */
export const DEPS_DIR = `${Deno.env.get("TMPDIR") ?? "/tmp"}/fgw-bench-gateway-deps`;
const PORTKEY = "@portkey-ai/gateway@1.15.2";

/** A child process and how to stop it. */
export interface Child {
  port: number;
  process: Deno.ChildProcess;
  stop(): Promise<void>;
}

/** Installs Portkey into `DEPS_DIR` unless it is there. */
export async function ensureNodeDeps(): Promise<void> {
  const have = async (path: string) =>
    await Deno.stat(`${DEPS_DIR}/node_modules/${path}`).then(() => true, () => false);
  if (await have("@portkey-ai/gateway/build/start-server.js")) return;
  await Deno.mkdir(DEPS_DIR, { recursive: true });
  await Deno.writeTextFile(`${DEPS_DIR}/package.json`, '{"private":true}');
  console.error(`installing ${PORTKEY} into ${DEPS_DIR}`);
  const { success } = await new Deno.Command("npm", {
    args: ["i", "--no-audit", "--no-fund", PORTKEY],
    cwd: DEPS_DIR,
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (!success) throw new Error("npm install failed");
}

function stopper(process: Deno.ChildProcess): () => Promise<void> {
  return async () => {
    try {
      process.kill("SIGTERM");
    } catch {
      // It has exited already.
    }
    await process.status;
  };
}

/** Starts the mock provider on a free port, pinned to `cpu`. */
export async function startMock(cpu: number): Promise<Child> {
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", new URL("./mock_openai.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = process.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  const port = JSON.parse(value ?? "{}").port as number;
  await pinToCpu(process.pid, cpu);
  return { port, process, stop: stopper(process) };
}

/** Starts Portkey (headless) on `port`, pinned to `cpu`; resolves once it answers. */
export async function startPortkey(port: number, cpu: number): Promise<Child> {
  const process = new Deno.Command("node", {
    args: [
      `${DEPS_DIR}/node_modules/@portkey-ai/gateway/build/start-server.js`,
      `--port=${port}`,
      "--headless",
    ],
    env: { TRUSTED_CUSTOM_HOSTS: "127.0.0.1,localhost" },
    stdout: "null",
    stderr: "null",
  }).spawn();
  await pinToCpu(process.pid, cpu);
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      async (r) => (await r.body?.cancel(), true),
      () => false,
    );
    if (up) return { port, process, stop: stopper(process) };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("Portkey did not start");
}

/** A wrk script POSTing `body` with `headers`, the `authorization` taken in turn from `keys`. */
export async function wrkScript(
  body: unknown,
  headers: Record<string, string>,
  keys: string[] = [],
): Promise<string> {
  const lua = (text: string) => JSON.stringify(text); // a JSON string is a valid Lua string literal here
  const lines = [
    'wrk.method = "POST"',
    `wrk.body = ${lua(JSON.stringify(body))}`,
    'wrk.headers["Content-Type"] = "application/json"',
    ...Object.entries(headers).map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`),
  ];
  if (keys.length > 0) {
    lines.push(
      `local keys = { ${keys.map((key) => lua(`Bearer ${key}`)).join(", ")} }`,
      "local i = 0",
      "request = function()",
      "  i = i + 1",
      '  wrk.headers["Authorization"] = keys[(i % #keys) + 1]',
      "  return wrk.format()",
      "end",
    );
  }
  const path = await Deno.makeTempFile({ prefix: "fgw_bench_", suffix: ".lua" });
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  return path;
}

export interface RateResult {
  label: string;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

/**
 * Latency at a fixed offered rate: `paced.ts` in its own Deno process pinned to CPU 1, one
 * request every 1000 / `rate` ms, each request's `authorization` taken in turn from `keys` (so the
 * load spreads over their orgs). Network errors count as non-2xx.
 */
export async function fixedRate(
  label: string,
  url: string,
  options: { rate: number; seconds: number; body: unknown; keys: string[] },
): Promise<RateResult> {
  const script = new URL("./paced.ts", import.meta.url).pathname;
  const settings = {
    url,
    rate: options.rate,
    seconds: options.seconds,
    body: JSON.stringify(options.body),
    keys: options.keys.map((k) => `Bearer ${k}`),
  };
  const { stdout, success, stderr } = await new Deno.Command("taskset", {
    args: ["-c", "1", Deno.execPath(), "run", "--allow-net", "--allow-env", script],
    env: { FGW_BENCH_PACED: JSON.stringify(settings) },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`paced load failed: ${new TextDecoder().decode(stderr)}`);
  const result = JSON.parse(new TextDecoder().decode(stdout));
  return {
    label,
    requests: result.requests,
    p50Ms: result.p50,
    p99Ms: result.p99,
    non2xx: result.non2xx + result.errors,
  };
}
