/**
 * The one HTTP client for every upstream: a timeout per attempt (headers and body), retries under
 * a policy the caller picks, exponential backoff with jitter, `Retry-After` (seconds or HTTP date,
 * capped), the caller's abort signal, the service's `User-Agent`, and an observer told the latency
 * and outcome of every attempt (metrics).
 *
 * `p-retry` runs the attempts: the bound, the abort signal, and stopping at once on a failure the
 * policy does not retry. The wait before a retry is computed here rather than by p-retry's own
 * timer, because it depends on the answer (`Retry-After`) and runs on an injected sleep, clock and
 * random source, so tests never really wait.
 */
import pRetry, { AbortError } from "p-retry";
import { setTimeout as delay } from "node:timers/promises";
import { type Clock, systemClock } from "./clock.ts";
import { isHeaderValue } from "./header_value.ts";
import { UpstreamError } from "./upstream_error.ts";
import { SERVICE_USER_AGENT } from "./version.ts";

/** Which failures a request may be retried after. */
export type RetryPolicy =
  /** Timeouts, network errors and the statuses 408, 429 and 5xx: for requests safe to repeat. */
  | "idempotent"
  /** Only a connection that was never made, so the upstream cannot have seen the request (POST). */
  | "unsent"
  | "never";

/** How one attempt ended: the answer's HTTP status, or why there was none. */
export type AttemptOutcome = number | "timeout" | "network";

/** Told about every attempt to an upstream (a caller's own abort is not reported). */
export interface UpstreamObserver {
  onAttempt(upstream: string, ms: number, outcome: AttemptOutcome): void;
}

export interface HttpClientOptions {
  /** The upstream's name in errors and metrics, e.g. `gamma`. */
  upstream: string;
  /** Default the global `fetch`. */
  fetch?: typeof fetch;
  /** Time allowed for one attempt, headers and body; default 15 s. */
  timeoutMs?: number;
  /** Retries after the first attempt (when the policy allows one); default 4. */
  retries?: number;
  /** First backoff delay, doubled on each retry, with equal jitter; default 500 ms. */
  backoffBaseMs?: number;
  /** Longest single wait, backoff or `Retry-After`; default 30 s. */
  maxDelayMs?: number;
  /** How the client waits between attempts; default a timer that the request's signal cancels. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Reads `Retry-After` dates; default the wall clock. */
  clock?: Clock;
  /** Jitter source in [0, 1); default `Math.random`. */
  random?: () => number;
  /** Default `forecasting-gateway/<version>`. */
  userAgent?: string;
  observer?: UpstreamObserver;
}

export interface UpstreamRequest {
  /** Default `GET`. */
  method?: string;
  headers?: HeadersInit;
  /** Sent again on each attempt, so text or bytes, never a stream. */
  body?: string | Uint8Array<ArrayBuffer>;
  signal?: AbortSignal;
  /** Default `idempotent` for GET, HEAD, OPTIONS, PUT and DELETE, `unsent` for other methods. */
  retry?: RetryPolicy;
  /** This request's attempt timeout, instead of the client's. */
  timeoutMs?: number;
}

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE"]);
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
const MAX_ERROR_BODY = 4096;

/** One request as every attempt sends it. */
interface Prepared {
  method: string;
  headers: Headers;
  body: string | Uint8Array<ArrayBuffer> | undefined;
  signal: AbortSignal | undefined;
  policy: RetryPolicy;
  timeoutMs: number;
}

/** An attempt that got no complete answer. */
interface NoAnswer {
  outcome: "timeout" | "network";
  /** Headers had arrived (the body did not). */
  answered: boolean;
  attempt: number;
  request: Prepared;
}

/** A retrying, timed-out HTTP client for one upstream. */
export class HttpClient {
  readonly upstream: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #backoffBaseMs: number;
  readonly #maxDelayMs: number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #userAgent: string;
  readonly #observer: UpstreamObserver | undefined;

  constructor(options: HttpClientOptions) {
    this.upstream = options.upstream;
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
    this.#retries = options.retries ?? 4;
    if (!Number.isInteger(this.#retries) || this.#retries < 0) {
      throw new RangeError(`Invalid retries: expected a non-negative integer, got ${this.#retries}`);
    }
    this.#backoffBaseMs = options.backoffBaseMs ?? 500;
    this.#maxDelayMs = options.maxDelayMs ?? 30_000;
    this.#sleep = options.sleep ?? sleepUnlessAborted;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#userAgent = options.userAgent ?? SERVICE_USER_AGENT;
    this.#observer = options.observer;
  }

  /**
   * Sends the request, retrying as its policy allows; resolves with the first 2xx answer (its
   * body already read, within the attempt's timeout). Anything else rejects with an
   * `UpstreamError`, or with the signal's reason once the caller aborts.
   */
  async request(url: URL | string, init: UpstreamRequest = {}): Promise<Response> {
    const method = (init.method ?? "GET").toUpperCase();
    const policy = init.retry ?? (IDEMPOTENT_METHODS.has(method) ? "idempotent" : "unsent");
    const headers = requestHeaders(init.headers);
    if (!headers.has("user-agent")) headers.set("user-agent", this.#userAgent);
    const request: Prepared = {
      method,
      headers,
      body: init.body,
      signal: init.signal,
      policy,
      timeoutMs: init.timeoutMs ?? this.#timeoutMs,
    };
    return await pRetry((attempt) => this.#attempt(url, request, attempt), {
      retries: policy === "never" ? 0 : this.#retries,
      // No timer of p-retry's own: the wait is taken in onFailedAttempt, when a retry follows.
      minTimeout: 0,
      ...(init.signal ? { signal: init.signal } : {}),
      onFailedAttempt: ({ error, retriesLeft, retriesConsumed }) =>
        retriesLeft > 0 ? this.#sleep(this.#delayMs(retriesConsumed, error), init.signal) : undefined,
    });
  }

  async #attempt(url: URL | string, request: Prepared, attempt: number): Promise<Response> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), request.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
    const started = performance.now();
    let outcome: AttemptOutcome = "network";
    let answered = false;
    try {
      const { method, headers, body } = request;
      const response = await this.#fetch(url, { method, headers, signal, ...(body ? { body } : {}) });
      answered = true;
      outcome = response.status;
      if (response.ok) return await buffered(response);
      throw this.#statusFailure(response, await errorBody(response), request.policy, attempt);
    } catch (error) {
      if (error instanceof UpstreamError || error instanceof AbortError) throw error;
      request.signal?.throwIfAborted();
      outcome = timeout.signal.aborted ? "timeout" : "network";
      throw this.#noAnswer(error, { outcome, answered, attempt, request });
    } finally {
      clearTimeout(timer);
      if (!request.signal?.aborted) {
        this.#observer?.onAttempt(this.upstream, performance.now() - started, outcome);
      }
    }
  }

  /** A non-2xx answer: retried under `idempotent` when its status is 408, 429 or 5xx. */
  #statusFailure(response: Response, body: string, policy: RetryPolicy, attempt: number): Error {
    const { status } = response;
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), this.#clock());
    const error = new UpstreamError(this.upstream, {
      failure: "status",
      reason: `HTTP ${status}`,
      attempts: attempt,
      status,
      body,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
    const retryable = policy === "idempotent" && (status === 408 || status === 429 || status >= 500);
    return retryable ? error : new AbortError(error);
  }

  /** No (complete) answer: a timeout or a network error. */
  #noAnswer(cause: unknown, at: NoAnswer): Error {
    const { outcome, request } = at;
    const reason = outcome === "timeout"
      ? `no answer within ${request.timeoutMs} ms`
      : `network error: ${describe(cause)}`;
    const error = new UpstreamError(this.upstream, { failure: outcome, reason, attempts: at.attempt }, {
      cause,
    });
    const unsent = !at.answered && outcome === "network" && neverConnected(cause);
    const retryable = request.policy === "idempotent" || (request.policy === "unsent" && unsent);
    return retryable ? error : new AbortError(error);
  }

  /** `Retry-After` when the answer sent one, else exponential backoff with equal jitter; capped. */
  #delayMs(retry: number, error: Error): number {
    const retryAfterMs = error instanceof UpstreamError ? error.retryAfterMs : undefined;
    const backoff = this.#backoffBaseMs * 2 ** retry * (0.5 + this.#random() / 2);
    return Math.min(this.#maxDelayMs, retryAfterMs ?? backoff);
  }
}

/** Milliseconds to wait from a `Retry-After` header (delta-seconds or HTTP date), or undefined. */
export function parseRetryAfter(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * True when the error says no connection was made (refused, name not resolved, TLS handshake
 * failed), so the request never left: Deno reports these as `client error (Connect)`.
 */
function neverConnected(error: unknown): boolean {
  return /client error \(Connect\)|connection refused|ECONNREFUSED/i.test(describe(error));
}

/** The error's message followed by its causes' messages. */
function describe(error: unknown): string {
  const messages: string[] = [];
  for (let at: unknown = error; messages.length < 5; at = (at as Error).cause) {
    if (!(at instanceof Error)) {
      if (at !== undefined) messages.push(String(at));
      break;
    }
    messages.push(at.message);
  }
  return messages.join(": ");
}

/** The answer with its body read into memory, so the attempt's timeout covers the body too. */
async function buffered(response: Response): Promise<Response> {
  const body = NULL_BODY_STATUSES.has(response.status) ? null : await response.arrayBuffer();
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

async function errorBody(response: Response): Promise<string> {
  return (await response.text()).slice(0, MAX_ERROR_BODY);
}

function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, signal ? { signal } : {}).catch((error: unknown) => {
    signal?.throwIfAborted();
    throw error;
  });
}

/**
 * `new Headers(init)`, whose TypeError for a bad value quotes the value: a value may be a secret
 * (a provider's API key) and the error may reach a log, so it names only the headers.
 */
function requestHeaders(init: HeadersInit | undefined): Headers {
  try {
    return new Headers(init);
  } catch {
    const entries: [string, string][] = Array.isArray(init)
      ? init.map(([name, value]) => [String(name), String(value)])
      : init instanceof Headers
      ? []
      : Object.entries(init ?? {});
    const bad = entries.filter(([, value]) => !isHeaderValue(value.trim())).map(([name]) => name);
    throw new TypeError(`Invalid request header (value not shown): ${bad.join(", ") || "unknown"}`);
  }
}
