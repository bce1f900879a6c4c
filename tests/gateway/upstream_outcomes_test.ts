/**
 * Every upstream outcome of docs/gateway.md ("Upstream outcomes"), for each real network adapter against
 * its vendor's fake: the failure kind, the client's status and headers, and how many attempts
 * were made (a retry only where the request never left: a refused connection).
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import {
  AnthropicAdapter,
  type CompletionRequest,
  OpenAiAdapter,
  type ProviderAdapter,
  type ProviderEntry,
  type ProviderHttpOptions,
} from "../../actors/gateway/mod.ts";
import { type AttemptOutcome, type ServiceError, silentLogger } from "../../actors/kernel/mod.ts";
import { onError } from "../../routes/middleware/error_handler.ts";
import { FakeAnthropic } from "../support/fake_anthropic.ts";
import type { FakeLlmMode, FakeLlmServer } from "../support/fake_llm.ts";
import { FakeOpenAi } from "../support/fake_openai.ts";
import { fakeProvider, providerErrorOf, recordedHttp, refusedUrl } from "./provider_fixtures.ts";

interface Vendor {
  name: "openai" | "anthropic";
  start(options?: { retryAfter?: string | null }): FakeLlmServer & { baseUrl: string };
  adapter(provider: ProviderEntry, http: ProviderHttpOptions): ProviderAdapter;
  request: CompletionRequest;
}

const VENDORS: Vendor[] = [
  {
    name: "openai",
    start: (options) => new FakeOpenAi(options),
    adapter: (provider, http) => new OpenAiAdapter(provider, http),
    request: { model: "gpt-test", messages: [{ role: "user", content: "hi" }], maxTokens: 8 },
  },
  {
    name: "anthropic",
    start: (options) => new FakeAnthropic(options),
    adapter: (provider, http) => new AnthropicAdapter(provider, http),
    request: { model: "claude-test", messages: [{ role: "user", content: "hi" }], maxTokens: 8 },
  },
];

interface Expected {
  failure: string;
  status: number;
  code: string;
  attempts: AttemptOutcome[];
  retryAfter?: string;
}

const CASES: [FakeLlmMode, string, Expected][] = [
  ["rate_limited", "429 with Retry-After → 503 unavailable passing Retry-After on", {
    failure: "rate_limited",
    status: 503,
    code: "unavailable",
    attempts: [429],
    retryAfter: "7",
  }],
  ["server_error", "500 → 502 upstream_error, not retried", {
    failure: "upstream",
    status: 502,
    code: "upstream_error",
    attempts: [500],
  }],
  ["slow", "no answer within the provider's timeout → 504 upstream_timeout, not retried", {
    failure: "timeout",
    status: 504,
    code: "upstream_timeout",
    attempts: ["timeout"],
  }],
  ["garbage", "a body that is not JSON → 502 upstream_error", {
    failure: "upstream",
    status: 502,
    code: "upstream_error",
    attempts: [200],
  }],
  ["wrong_shape", "JSON that is not a completion → 502 upstream_error", {
    failure: "upstream",
    status: 502,
    code: "upstream_error",
    attempts: [200],
  }],
  ["unauthorized", "401 of the operator's key → 502 upstream_error", {
    failure: "account",
    status: 502,
    code: "upstream_error",
    attempts: [401],
  }],
];

/** The response the service's error handler renders for `error`. */
async function rendered(error: ServiceError): Promise<Response> {
  const app = new Hono();
  app.onError(onError(silentLogger));
  app.get("/", () => {
    throw error;
  });
  return await app.request("/");
}

async function assertAnswer(error: ServiceError, expected: Expected): Promise<void> {
  const response = await rendered(error);
  assert.equal(response.status, expected.status);
  const body = await response.json();
  assert.equal(body.error.code, expected.code);
  assert.equal(response.headers.get("retry-after"), expected.retryAfter ?? null);
}

for (const vendor of VENDORS) {
  for (const [mode, behaviour, expected] of CASES) {
    Deno.test(`${vendor.name} adapter: ${behaviour}`, async () => {
      await using fake = vendor.start();
      fake.respondNext(mode);
      const http = recordedHttp();
      // Short only where the fake hangs: elsewhere a loaded host must not turn an answer into a timeout.
      const timeoutMs = mode === "slow" ? 200 : 10_000;
      const adapter = vendor.adapter(fakeProvider(vendor.name, fake.baseUrl, { timeoutMs }), http);
      const error = await providerErrorOf(adapter.complete(vendor.request));
      assert.equal(error.failure, expected.failure);
      assert.deepEqual(http.attempts, expected.attempts);
      await assertAnswer(error.toServiceError(), expected);
    });
  }

  Deno.test(`${vendor.name} adapter: a refused connection is retried, then 502 upstream_error`, async () => {
    const http = recordedHttp();
    const adapter = vendor.adapter(fakeProvider(vendor.name, refusedUrl()), http);
    const error = await providerErrorOf(adapter.complete(vendor.request));
    assert.equal(error.failure, "upstream");
    assert.deepEqual(http.attempts, ["network", "network", "network"]);
    await assertAnswer(error.toServiceError(), { ...expected502, attempts: [] });
  });

  Deno.test(`${vendor.name} adapter: the provider's timeout bounds the whole call, waits between attempts too`, async () => {
    const http = recordedHttp();
    // A wait before the retry that only ends when the call is given up.
    const sleep = (_ms: number, signal?: AbortSignal) =>
      new Promise<void>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
    const provider = fakeProvider(vendor.name, refusedUrl(), { timeoutMs: 100 });
    const error = await providerErrorOf(
      vendor.adapter(provider, { ...http, sleep }).complete(vendor.request),
    );
    assert.equal(error.failure, "timeout");
    assert.deepEqual(http.attempts, ["network"]);
    await assertAnswer(error.toServiceError(), { ...expected502, status: 504, code: "upstream_timeout" });
  });

  Deno.test(`${vendor.name} adapter: a 429 without Retry-After still answers Retry-After: 1`, async () => {
    await using fake = vendor.start({ retryAfter: null });
    fake.respondNext("rate_limited");
    const adapter = vendor.adapter(fakeProvider(vendor.name, fake.baseUrl), recordedHttp());
    const error = await providerErrorOf(adapter.complete(vendor.request));
    assert.equal(error.retryAfterSeconds, undefined);
    await assertAnswer(error.toServiceError(), { ...expected503, retryAfter: "1" });
  });
}

const expected502: Expected = { failure: "upstream", status: 502, code: "upstream_error", attempts: [] };
const expected503: Expected = { failure: "rate_limited", status: 503, code: "unavailable", attempts: [] };
