/**
 * Probe: how long do slow and idle clients keep connections open? Opens, against `--host`/`--port`
 * (default 127.0.0.1:8080): 200 idle connections (no byte sent), 50 requests whose headers stop
 * half-way, 50 whose JSON body stops half-way, 50 keep-alive connections left idle after one
 * answered request, and 20 that drip one header line every 2 s. After `--wait` seconds (default
 * 75) it prints, per kind, how many are still open and when the last one was closed, and whether
 * a normal request was still answered meanwhile. `--ca <PEM file>` speaks TLS, trusting that CA
 * (an idle connection then sends no byte of the handshake either).
 *
 *   deno run --allow-net --allow-read scripts/dev/probe_slow_clients.ts --port 443 --ca proxy.crt
 */
import { parseArgs } from "node:util";

type Kind = "idle" | "half headers" | "half body" | "keep-alive idle" | "header drip";

const PLAN: readonly [Kind, number][] = [
  ["idle", 200],
  ["half headers", 50],
  ["half body", 50],
  ["keep-alive idle", 50],
  ["header drip", 20],
];

interface Probe {
  kind: Kind;
  conn: Deno.Conn;
  closedAtMs?: number;
  drip?: ReturnType<typeof setInterval>;
}

const encoder = new TextEncoder();

/** What each kind sends after connecting (the drip then adds one header line every 2 s). */
function opening(kind: Kind): string {
  switch (kind) {
    case "idle":
      return "";
    case "half headers":
      return "GET /v1/events HTTP/1.1\r\nHost: probe\r\nAccept: application/json\r\n";
    case "half body":
      return "POST /admin/v1/orgs HTTP/1.1\r\nHost: probe\r\nContent-Type: application/json\r\n" +
        'Content-Length: 1000\r\n\r\n{"name":';
    case "keep-alive idle":
      return "GET /healthz HTTP/1.1\r\nHost: probe\r\n\r\n";
    case "header drip":
      return "GET /healthz HTTP/1.1\r\n";
  }
}

interface Target {
  hostname: string;
  port: number;
  /** PEM of the CA to trust; TLS when set. */
  ca?: string;
}

async function open(kind: Kind, target: Target, startMs: number): Promise<Probe> {
  const { hostname, port, ca } = target;
  const conn = ca === undefined
    ? await Deno.connect({ hostname, port })
    : await Deno.connectTls({ hostname, port, caCerts: [ca] });
  const probe: Probe = { kind, conn };
  const first = opening(kind);
  if (first) await conn.write(encoder.encode(first));
  if (kind === "header drip") {
    probe.drip = setInterval(() => conn.write(encoder.encode("X-Drip: 1\r\n")).catch(() => {}), 2_000);
  }
  watchClose(probe, startMs);
  return probe;
}

/** Reads (and discards) until the server closes the connection, then records when. */
async function watchClose(probe: Probe, startMs: number): Promise<void> {
  const buffer = new Uint8Array(4_096);
  try {
    while ((await probe.conn.read(buffer)) !== null) { /* an answer (e.g. 408): keep reading */ }
  } catch { /* reset by the server: closed as well */ }
  probe.closedAtMs = performance.now() - startMs;
  clearInterval(probe.drip);
}

/** Milliseconds a normal `GET /healthz` on a fresh connection takes, or an error message. */
async function healthyRequest({ hostname, port, ca }: Target): Promise<string> {
  const started = performance.now();
  const url = `${ca === undefined ? "http" : "https"}://${hostname}:${port}/healthz`;
  using client = Deno.createHttpClient(ca === undefined ? {} : { caCerts: [ca] });
  try {
    const response = await fetch(url, { client, signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    return `${response.status} in ${(performance.now() - started).toFixed(1)} ms`;
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function report(probes: Probe[], waitS: number): void {
  console.log(`kind             opened  open after ${waitS}s  last closed at`);
  for (const [kind] of PLAN) {
    const ofKind = probes.filter((probe) => probe.kind === kind);
    const closed = ofKind.flatMap((probe) => probe.closedAtMs === undefined ? [] : [probe.closedAtMs]);
    const last = closed.length === 0 ? "-" : `${(Math.max(...closed) / 1_000).toFixed(1)} s`;
    const stillOpen = ofKind.length - closed.length;
    console.log(
      `${kind.padEnd(16)} ${String(ofKind.length).padStart(6)}  ${String(stillOpen).padStart(14)}  ${last}`,
    );
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "8080" },
      wait: { type: "string", default: "75" },
      ca: { type: "string" },
    },
  });
  const target: Target = { hostname: values.host, port: Number(values.port) };
  if (values.ca !== undefined) target.ca = await Deno.readTextFile(values.ca);
  const waitS = Number(values.wait);
  const startMs = performance.now();
  const probes: Probe[] = [];
  for (const [kind, count] of PLAN) {
    for (let i = 0; i < count; i++) probes.push(await open(kind, target, startMs));
  }
  console.log(`opened ${probes.length} connections to ${target.hostname}:${target.port}`);
  console.log(`a normal request meanwhile: ${await healthyRequest(target)}`);
  await new Promise((resolve) => setTimeout(resolve, waitS * 1_000));
  report(probes, waitS);
  for (const probe of probes) {
    clearInterval(probe.drip);
    if (probe.closedAtMs === undefined) probe.conn.close();
  }
}

if (import.meta.main) await main();
