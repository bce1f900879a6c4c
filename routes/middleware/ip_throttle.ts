import type { Context, MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/deno";
import { LRUCache } from "lru-cache";
import { isIPv6 } from "node:net";
import type { Clock } from "../../actors/kernel/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { MINUTE_MS, secondsUntilReset, windowAt } from "../../actors/keys/mod.ts";

export interface IpThrottleOptions {
  /** Requests per minute per client address on this instance; 0 disables the throttle. */
  rpm: number;
  /** Connecting addresses whose `X-Forwarded-For` is believed (exact match, after `normalizeAddress`). */
  trustedProxies: readonly string[];
  clock: Clock;
  /** Most clients tracked at once; the least recently seen is dropped beyond it (default 100,000). */
  maxAddresses?: number;
  /** Paths never throttled (default: the health probes `/healthz` and `/readyz`). */
  exemptPaths?: readonly string[];
}

/**
 * One spelling per address: surrounding space, a port (`1.2.3.4:5678`, `[v6]:443`) and IPv6
 * brackets dropped; an IPv4-mapped IPv6 address as its IPv4 form; other IPv6 addresses in their
 * canonical form (lowercase, zeros compressed). Anything else is kept as written.
 */
export function normalizeAddress(raw: string): string {
  let address = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address.toLowerCase();
  }
}

/**
 * What one client is counted as: an IPv4 address, or the /64 prefix of an IPv6 address (one
 * subscriber gets a whole /64, so counting single IPv6 addresses would let it rotate freely).
 */
export function clientKey(address: string): string {
  if (!isIPv6(address)) return address;
  const [head = "", tail] = address.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

/** The connecting address (`Deno.serve`'s `remoteAddr`, via Hono); undefined in-process (`app.request`). */
export function connectingAddress(c: Context): string | undefined {
  const env = c.env as { remoteAddr?: unknown } | undefined;
  return env?.remoteAddr === undefined ? undefined : normalizeAddress(getConnInfo(c).remote.address ?? "");
}

/**
 * The client's address: the connecting address, unless that is a trusted proxy — then the
 * right-most `X-Forwarded-For` entry that is not itself a trusted proxy (entries further left
 * are client-supplied and not believed).
 */
export function clientAddress(c: Context, trustedProxies: ReadonlySet<string>): string | undefined {
  const remote = connectingAddress(c);
  if (remote === undefined || !trustedProxies.has(remote)) return remote;
  const hops = (c.req.header("x-forwarded-for") ?? "").split(",").map(normalizeAddress).filter((hop) => hop);
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = hops[index]!;
    if (!trustedProxies.has(hop)) return hop;
  }
  return hops[0] ?? remote;
}

/** Per-client counts of the current fixed window, in memory, least recently seen dropped first. */
export class AddressWindows {
  readonly #counts: LRUCache<string, number>;
  #windowStartMs = -1;

  constructor(maxAddresses: number) {
    this.#counts = new LRUCache({ max: maxAddresses });
  }

  /** Counts one request from `client` in the window starting at `windowStartMs`; returns its count. */
  hit(client: string, windowStartMs: number): number {
    if (windowStartMs !== this.#windowStartMs) {
      this.#counts.clear();
      this.#windowStartMs = windowStartMs;
    }
    const count = (this.#counts.get(client) ?? 0) + 1;
    this.#counts.set(client, count);
    return count;
  }

  /** Clients currently tracked. */
  get size(): number {
    return this.#counts.size;
  }
}

/**
 * IP-level throttle on all traffic: at most `rpm` requests per client (IPv4 address or IPv6 /64)
 * per fixed minute, counted in memory on each instance (N instances admit up to N × rpm per
 * client). Over the threshold: 429 `rate_limited` with `Retry-After`. Requests with no connection
 * address (in-process `app.request`) and the exempt paths are not counted.
 */
export function ipThrottle(options: IpThrottleOptions): MiddlewareHandler {
  const trusted = new Set(options.trustedProxies.map(normalizeAddress));
  const exempt = new Set(options.exemptPaths ?? ["/healthz", "/readyz"]);
  const windows = new AddressWindows(options.maxAddresses ?? 100_000);
  return async (c, next) => {
    const address = options.rpm > 0 && !exempt.has(c.req.path) ? clientAddress(c, trusted) : undefined;
    if (address !== undefined) {
      const now = options.clock();
      const window = windowAt(now, MINUTE_MS);
      if (windows.hit(clientKey(address), window.startMs) > options.rpm) {
        throw new ServiceError(
          "rate_limited",
          "Too many requests from this address: try again when the window resets",
          {
            retryAfterSeconds: secondsUntilReset(window, now),
            details: { limit: options.rpm },
          },
        );
      }
    }
    await next();
  };
}
