/**
 * The HTTP side every network adapter shares: the service's retrying `HttpClient` set up for an
 * LLM provider (a POST is retried only when the connection was never made, so no tokens can have
 * been spent), and the mapping of every failure to a `ProviderError` (docs/gateway.md, "Upstream outcomes").
 */
import { type Clock, HttpClient, UpstreamError, type UpstreamObserver } from "../../kernel/mod.ts";
import { ProviderError } from "../provider_adapter.ts";
import type { ProviderEntry } from "../provider_catalog.ts";

/** Attempts after the first one, only after a refused connection. */
export const PROVIDER_RETRIES = 2;
/** First wait before such a retry (doubled, with jitter); the longest wait. */
const BACKOFF_BASE_MS = 100;
const MAX_DELAY_MS = 1_000;
/** How much of a provider's refusal is kept as its reason. */
const MAX_REASON_CHARS = 300;

/** What a network adapter is built with besides its catalog entry (tests inject the waits). */
export interface ProviderHttpOptions {
  fetch?: typeof fetch;
  observer?: UpstreamObserver;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  clock?: Clock;
}

/** The client of one provider: its timeout per attempt, retries only where nothing was sent. */
export function providerHttpClient(provider: ProviderEntry, options: ProviderHttpOptions = {}): HttpClient {
  return new HttpClient({
    ...options,
    upstream: provider.id,
    timeoutMs: provider.timeoutMs,
    retries: PROVIDER_RETRIES,
    backoffBaseMs: BACKOFF_BASE_MS,
    maxDelayMs: MAX_DELAY_MS,
  });
}

/**
 * How much longer than one attempt's timeout the whole call may take (retries after a refused
 * connection, waits): a single slow attempt then ends by its own timeout, which the upstream
 * metrics see, rather than by the call's deadline.
 */
const CALL_SLACK_MS = 1_000;

/**
 * The longest a call to `provider` can take, every attempt and every wait between them: its
 * deadline, `timeoutMs` (each attempt's timeout) plus 1 s.
 */
export function longestCallMs(provider: Pick<ProviderEntry, "timeoutMs">): number {
  return provider.timeoutMs + CALL_SLACK_MS;
}

/**
 * POSTs `body` as JSON and returns the parsed JSON answer, each attempt within `timeoutMs` and the
 * whole call (attempts and waits) within `longestCallMs`; every failure is a `ProviderError`, except the caller's own
 * abort, which rejects with the signal's reason.
 */
export async function postJson(
  http: HttpClient,
  url: string,
  options: {
    headers: Record<string, string>;
    body: unknown;
    timeoutMs: number;
    signal?: AbortSignal | undefined;
  },
): Promise<unknown> {
  const deadline = AbortSignal.timeout(longestCallMs(options));
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let response: Response;
  try {
    response = await http.request(url, {
      method: "POST",
      headers: { ...options.headers, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(options.body),
      retry: "unsent",
      timeoutMs: options.timeoutMs,
      signal,
    });
  } catch (error) {
    if (error instanceof UpstreamError) throw providerFailure(error);
    if (deadline.aborted && !options.signal?.aborted) {
      const reason = `no answer within ${longestCallMs(options)} ms`;
      throw new ProviderError(http.upstream, { failure: "timeout", reason }, { cause: error });
    }
    throw error;
  }
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw malformed(http.upstream, "the answer is not JSON");
  }
}

/** A 2xx answer the adapter cannot read (no choices, no content blocks…): 502, not charged. */
export function malformed(provider: string, reason: string): ProviderError {
  return new ProviderError(provider, { failure: "upstream", reason: `malformed answer: ${reason}` });
}

/** The provider's failure as the gateway answers it. */
export function providerFailure(error: UpstreamError): ProviderError {
  const provider = error.upstream;
  if (error.failure === "timeout") {
    return new ProviderError(provider, { failure: "timeout", reason: error.detail }, { cause: error });
  }
  if (error.failure === "network" || error.status === undefined) {
    return new ProviderError(provider, { failure: "upstream", reason: error.detail }, { cause: error });
  }
  const status = error.status;
  const at = { status, reason: `HTTP ${status}` };
  if (status === 429) {
    const retryAfterSeconds = error.retryAfterMs === undefined ? undefined : error.retryAfterMs / 1000;
    return new ProviderError(provider, {
      failure: "rate_limited",
      ...at,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }
  // The operator's account or key: the body may quote part of the key, so it is not kept.
  if (status === 401 || status === 402 || status === 403) {
    return new ProviderError(provider, { failure: "account", ...at });
  }
  if (status === 408) return new ProviderError(provider, { failure: "timeout", ...at });
  if (status === 400 || status === 404 || status === 413 || status === 422) {
    return new ProviderError(provider, {
      failure: "request",
      status,
      reason: providerReason(error.body, status),
    });
  }
  return new ProviderError(provider, { failure: "upstream", ...at });
}

/**
 * The reason a provider gave in its error body: OpenAI's and Anthropic's `error.message`, Ollama's
 * `error` string, a top-level `message` or `detail`; else the start of the body.
 */
export function providerReason(body: string, status: number): string {
  let found: unknown;
  try {
    const json = JSON.parse(body) as Record<string, unknown> | null;
    const error = json?.error;
    found = typeof error === "string" ? error : (error as Record<string, unknown> | undefined)?.message;
    found ??= json?.message ?? json?.detail;
  } catch {
    found = body;
  }
  // deno-lint-ignore no-control-regex
  const text = typeof found === "string" ? found.replace(/[\u0000-\u001f\u007f]+/g, " ").trim() : "";
  return text.length > 0 ? text.slice(0, MAX_REASON_CHARS) : `HTTP ${status}`;
}
