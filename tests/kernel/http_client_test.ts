import assert from "node:assert/strict";
import {
  type AttemptOutcome,
  HttpClient,
  type HttpClientOptions,
  SERVICE_USER_AGENT,
  UpstreamError,
} from "../../actors/kernel/mod.ts";

const NOW = Date.parse("2026-11-25T00:00:00.000Z");
/**
 * The attempt timeout of a test where some attempt must be answered in time. Tests whose upstream
 * never answers keep a short one.
 */
const ANSWER_TIMEOUT_MS = 2_000;

/** One scripted answer: a status (with headers and body), or no answer until the fake closes. */
type Script = { status: number; headers?: Record<string, string>; body?: string } | { hang: true };

/** A local upstream that plays scripted answers in order, then answers 200 `ok`. */
class ScriptedUpstream {
  readonly url: string;
  readonly received: Array<{ method: string; userAgent: string | null; body: string }> = [];
  readonly #script: Script[];
  readonly #closing = new AbortController();
  readonly #server: Deno.HttpServer<Deno.NetAddr>;

  constructor(script: Script[]) {
    this.#script = [...script];
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
      return this.#answer(request);
    });
    this.url = `http://127.0.0.1:${this.#server.addr.port}/resource`;
  }

  async #answer(request: Request): Promise<Response> {
    const body = await request.text();
    this.received.push({ method: request.method, userAgent: request.headers.get("user-agent"), body });
    const next = this.#script.shift() ?? { status: 200, body: "ok" };
    if ("hang" in next) {
      await new Promise((resolve) => this.#closing.signal.addEventListener("abort", resolve, { once: true }));
      return new Response("too late");
    }
    const text = next.status === 204 ? null : next.body ?? `answer ${next.status}`;
    return new Response(text, { status: next.status, headers: next.headers ?? {} });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#closing.abort();
    await this.#server.shutdown();
  }
}

/** A client that records its waits instead of waiting, and the outcome of every attempt. */
function clientFor(options: Partial<HttpClientOptions> = {}) {
  const sleeps: number[] = [];
  const outcomes: AttemptOutcome[] = [];
  const client = new HttpClient({
    upstream: "scripted",
    clock: () => NOW,
    random: () => 0,
    backoffBaseMs: 100,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    observer: { onAttempt: (_upstream, _ms, outcome) => outcomes.push(outcome) },
    ...options,
  });
  return { client, sleeps, outcomes };
}

async function upstreamError(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof UpstreamError, `expected an UpstreamError, got ${error}`);
    return error;
  }
  assert.fail("the request succeeded");
}

Deno.test("a GET answered 503 is retried with growing backoff until it is served", async () => {
  await using upstream = new ScriptedUpstream([{ status: 503 }, { status: 503 }]);
  const { client, sleeps, outcomes } = clientFor();

  const response = await client.request(upstream.url);

  assert.equal(response.status, 200);
  assert.equal(await response.text(), "ok");
  assert.equal(upstream.received.length, 3);
  assert.deepEqual(sleeps, [50, 100], "base 100 ms doubled per retry, jittered down to half");
  assert.deepEqual(outcomes, [503, 503, 200]);
  assert.ok(upstream.received.every((request) => request.userAgent === SERVICE_USER_AGENT));
  assert.match(SERVICE_USER_AGENT, /^forecasting-gateway\/\d+\.\d+\.\d+$/);
});

Deno.test("Retry-After in seconds or as an HTTP date sets the wait, capped at maxDelayMs", async () => {
  await using upstream = new ScriptedUpstream([
    { status: 429, headers: { "retry-after": "2" } },
    { status: 503, headers: { "retry-after": new Date(NOW + 5_000).toUTCString() } },
    { status: 503, headers: { "retry-after": "3600" } },
  ]);
  const { client, sleeps } = clientFor({ maxDelayMs: 10_000 });
  const response = await client.request(upstream.url);
  assert.equal(response.status, 200);
  assert.deepEqual(sleeps, [2_000, 5_000, 10_000]);
});

Deno.test("after the retry bound the client gives up with an UpstreamError naming status and attempts", async () => {
  const failing = { status: 503, headers: { "retry-after": "7" }, body: "down for maintenance" };
  await using upstream = new ScriptedUpstream([failing, failing, failing, failing]);
  const { client, sleeps } = clientFor({ retries: 2 });

  const error = await upstreamError(client.request(upstream.url));

  assert.equal(error.message, "Upstream scripted failed: HTTP 503 (3 attempts)");
  assert.deepEqual(
    [error.failure, error.status, error.attempts, error.retryAfterMs, error.body],
    ["status", 503, 3, 7_000, "down for maintenance"],
  );
  assert.equal(upstream.received.length, 3);
  assert.equal(sleeps.length, 2, "no wait after the last attempt");
});

Deno.test("a client error other than 408 or 429 is not retried and keeps the upstream's reason", async () => {
  await using upstream = new ScriptedUpstream([{ status: 404, body: '{"error":"no such model"}' }]);
  const { client, sleeps } = clientFor();
  const error = await upstreamError(client.request(upstream.url));
  assert.equal(error.status, 404);
  assert.equal(error.body, '{"error":"no such model"}');
  assert.equal(error.detail, "HTTP 404 (1 attempt)");
  assert.equal(upstream.received.length, 1);
  assert.deepEqual(sleeps, []);
});

Deno.test("a slow upstream is abandoned at each attempt's timeout and the error says so", async () => {
  await using upstream = new ScriptedUpstream([{ hang: true }, { hang: true }]);
  const { client, outcomes } = clientFor({ timeoutMs: 50, retries: 1 });
  const error = await upstreamError(client.request(upstream.url));
  assert.equal(error.failure, "timeout");
  assert.equal(error.detail, "no answer within 50 ms (2 attempts)");
  assert.deepEqual(outcomes, ["timeout", "timeout"]);
  assert.equal(upstream.received.length, 2);
});

Deno.test("a timed-out attempt is retried and the next answer served", async () => {
  await using upstream = new ScriptedUpstream([{ hang: true }]);
  // The timeout also bounds the attempt that must be served: seconds, for a busy machine.
  const { client } = clientFor({ timeoutMs: ANSWER_TIMEOUT_MS });
  const response = await client.request(upstream.url);
  assert.equal(await response.text(), "ok");
  assert.equal(upstream.received.length, 2);
});

Deno.test("a POST is not retried once the request was sent: neither on 503 nor on a timeout", async () => {
  await using upstream = new ScriptedUpstream([{ status: 503 }, { hang: true }]);
  // The 503 must come back within the timeout: seconds, for a busy machine.
  const { client } = clientFor({ timeoutMs: ANSWER_TIMEOUT_MS });

  const refused = await upstreamError(
    client.request(upstream.url, { method: "POST", body: "charge me once" }),
  );
  assert.equal(refused.detail, "HTTP 503 (1 attempt)");
  const slow = await upstreamError(client.request(upstream.url, { method: "POST", body: "charge me once" }));
  assert.equal(slow.detail, `no answer within ${ANSWER_TIMEOUT_MS} ms (1 attempt)`);

  assert.deepEqual(upstream.received.map((request) => [request.method, request.body]), [
    ["POST", "charge me once"],
    ["POST", "charge me once"],
  ]);
});

Deno.test("a POST whose connection is refused is retried, since the upstream never saw it", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = listener.addr.port;
  listener.close();
  const { client, outcomes, sleeps } = clientFor({ retries: 2 });

  const error = await upstreamError(
    client.request(`http://127.0.0.1:${closedPort}/`, { method: "POST", body: "{}" }),
  );

  assert.equal(error.failure, "network");
  assert.equal(error.attempts, 3);
  assert.match(error.message, /network error: .*Connection refused/i);
  assert.deepEqual(outcomes, ["network", "network", "network"]);
  assert.equal(sleeps.length, 2);
});

Deno.test("a request with retry 'never' makes one attempt whatever the answer", async () => {
  await using upstream = new ScriptedUpstream([{ status: 503 }]);
  const { client } = clientFor();
  const error = await upstreamError(client.request(upstream.url, { retry: "never" }));
  assert.equal(error.attempts, 1);
});

Deno.test("the caller's abort stops a request in flight and the wait before a retry", async () => {
  await using upstream = new ScriptedUpstream([{ hang: true }, { status: 503 }]);
  const inFlight = new AbortController();
  const { client: hanging } = clientFor({ observer: { onAttempt: () => {} } });
  const request = hanging.request(upstream.url, { signal: inFlight.signal });
  while (upstream.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  inFlight.abort();
  await assert.rejects(request, { name: "AbortError" });

  // A real (unstubbed) backoff of 10 s or more, cut short by an abort once the 503 is observed.
  const waiting = new AbortController();
  const client = new HttpClient({
    upstream: "scripted",
    backoffBaseMs: 20_000,
    observer: { onAttempt: () => setTimeout(() => waiting.abort(), 0) },
  });
  await assert.rejects(client.request(upstream.url, { signal: waiting.signal }), { name: "AbortError" });
  assert.equal(upstream.received.length, 2, "no attempt after the abort");
});

Deno.test("a signal aborted before the call sends nothing", async () => {
  await using upstream = new ScriptedUpstream([]);
  const { client } = clientFor();
  await assert.rejects(client.request(upstream.url, { signal: AbortSignal.abort() }), { name: "AbortError" });
  assert.equal(upstream.received.length, 0);
});

Deno.test("a 204 answer is served with no body", async () => {
  await using upstream = new ScriptedUpstream([{ status: 204 }]);
  const { client } = clientFor();
  const response = await client.request(upstream.url, { method: "DELETE" });
  assert.equal(response.status, 204);
  assert.equal(response.body, null);
});

Deno.test("a header value that cannot be sent is refused by name, its value (maybe a secret) not quoted, and nothing is sent", async () => {
  await using upstream = new ScriptedUpstream([]);
  const { client } = clientFor();
  const headers = { accept: "application/json", authorization: "Bearer sk-LEAKME\n-123" };
  await assert.rejects(client.request(upstream.url, { headers }), (error: Error) => {
    assert.ok(error instanceof TypeError);
    assert.equal(error.message, "Invalid request header (value not shown): authorization");
    return true;
  });
  assert.equal(upstream.received.length, 0);
});
