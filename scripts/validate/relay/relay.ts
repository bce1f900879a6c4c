/**
 * A run's LLM relay (docs/agents.md, "LLM calls"): an HTTP/1.1 server on a Unix socket of its own,
 * started for one lease and closed when the run ends. The agent reaches it at `/run/fgw/relay.sock`
 * (the sandbox binds `socketPath` there) or at `FGW_RELAY_SOCKET` unsandboxed.
 */
import http from "node:http";
import type { SigningDeps } from "../signed_fetch.ts";
import { waitAtMost } from "../wait_at_most.ts";
import { serveNode } from "./_node_bridge.ts";
import { relayApp } from "./relay_app.ts";
import { type CallLimits, RelayCalls, type RelayStats } from "./relay_calls.ts";
import type { RelayLease } from "./relay_forward.ts";

export interface RelayLimits extends CallLimits {
  /** Largest request body (413 beyond). */
  maxBodyBytes: number;
  /** Connections open at once; one more is closed as it opens. */
  maxConnections: number;
  /** Time for a request's headers to arrive (408 and closed after it). */
  headersTimeoutMs: number;
  /** Time for a whole request, body included, to arrive (408 and closed after it). */
  requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after it. */
  keepAliveTimeoutMs: number;
}

/**
 * The contract's limits (docs/agents.md): 20 calls, 4 in flight; the gateway's body limit
 * (`FGW_GATEWAY_MAX_BODY_BYTES`, 1 MiB) less room for the lease the relay adds; 64 connections,
 * one per process or thread an agent may have.
 */
export const RELAY_LIMITS: Readonly<RelayLimits> = {
  maxCalls: 20,
  maxInFlight: 4,
  upstreamTimeoutMs: 120_000,
  maxBodyBytes: 1_048_576 - 256,
  maxConnections: 64,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

/** How often the server looks for connections past their timeouts. */
const TIMEOUT_CHECK_MS = 250;
/** Longest wait, once the calls ended, for answers still being written before connections are cut. */
const WRITE_GRACE_MS = 1_000;

export interface RelayOptions extends SigningDeps {
  lease: RelayLease;
  limits?: Partial<RelayLimits>;
  /**
   * A fresh, empty folder for the socket, one the run's user can reach (the run starter's
   * `relaySocketDir()`); the relay removes it when it closes. Default: a private temporary folder.
   */
  socketDir?: string;
}

export interface Relay {
  /** The host path of the socket (in a directory of its own, removed at close). */
  readonly socketPath: string;
  stats(): RelayStats;
  /**
   * Stops taking calls; lets those in progress finish for `graceMs` (default 0), then abandons
   * them; closes every connection and removes the socket. The same promise however often called.
   */
  close(options?: { graceMs?: number }): Promise<RelayStats>;
}

/** Starts the relay of one run: `lease`'s calls, forwarded signed by `options.signer`. */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const limits = { ...RELAY_LIMITS, ...options.limits };
  const dir = options.socketDir ?? await Deno.makeTempDir({ prefix: "fgw-relay-" });
  const socketPath = `${dir}/relay.sock`;
  const calls = new RelayCalls(options, options.lease, limits);
  const app = relayApp(calls, limits);
  const answering = new Set<Promise<void>>();
  const server = http.createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
  }, (req, res) => {
    const answer = serveNode(app.fetch, req, res).finally(() => answering.delete(answer));
    answering.add(answer);
  });
  server.maxConnections = limits.maxConnections;
  await listen(server, socketPath).catch(async (error) => {
    await Deno.remove(dir, { recursive: true });
    throw error;
  });
  // The agent may run as another user (docs/agents.md): the folder keeps everyone else out.
  await Deno.chmod(socketPath, 0o666);
  let closed: Promise<RelayStats> | null = null;
  return {
    socketPath,
    stats: () => calls.stats(),
    close: (close = {}) => closed ??= shutDown({ server, calls, answering, dir }, close.graceMs ?? 0),
  };
}

function listen(server: http.Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

interface Running {
  server: http.Server;
  calls: RelayCalls;
  answering: Set<Promise<void>>;
  dir: string;
}

async function shutDown(running: Running, graceMs: number): Promise<RelayStats> {
  const { server, calls, answering, dir } = running;
  const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
  const stats = await calls.end(graceMs);
  await waitAtMost(Promise.allSettled([...answering]), WRITE_GRACE_MS);
  server.closeAllConnections();
  await serverClosed;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  return stats;
}
