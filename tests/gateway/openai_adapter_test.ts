import assert from "node:assert/strict";
import { OpenAiAdapter } from "../../actors/gateway/mod.ts";
import { plainDecimal } from "../../actors/gateway/providers/openai/openai_response.ts";
import { FakeOpenAi } from "../support/fake_openai.ts";
import { fakeProvider, providerErrorOf, recordedHttp } from "./provider_fixtures.ts";

const REQUEST = {
  model: "gpt-test",
  messages: [
    { role: "system" as const, content: "Be brief." },
    { role: "user" as const, content: "Will it rain?" },
  ],
  maxTokens: 64,
};

Deno.test("openai adapter sends a chat completion with the key, the limit and the sampling fields", async () => {
  await using fake = new FakeOpenAi();
  const adapter = new OpenAiAdapter(
    fakeProvider("openai", fake.baseUrl, { extraBody: { user: "fgw", seed: 7 } }),
  );
  await adapter.complete({ ...REQUEST, temperature: 0.2, topP: 0.9, stop: ["\n\n"] });
  const [sent] = fake.requests;
  assert.equal(sent?.path, "/v1/chat/completions");
  assert.equal(sent?.headers.get("authorization"), "Bearer sk-test-openai");
  assert.equal(sent?.headers.get("content-type"), "application/json");
  assert.match(sent?.headers.get("user-agent") ?? "", /^forecasting-gateway\//);
  assert.deepEqual(sent?.body, {
    user: "fgw",
    seed: 7,
    model: "gpt-test",
    messages: REQUEST.messages,
    max_tokens: 64,
    temperature: 0.2,
    top_p: 0.9,
    stop: ["\n\n"],
  });
});

Deno.test("openai adapter leaves out the sampling fields the request does not set", async () => {
  await using fake = new FakeOpenAi();
  await new OpenAiAdapter(fakeProvider("openai", fake.baseUrl)).complete(REQUEST);
  assert.deepEqual(Object.keys(fake.requests[0]?.body ?? {}), ["model", "messages", "max_tokens"]);
});

Deno.test("openai adapter sends max_completion_tokens when the provider's tokenLimitParam says so", async () => {
  await using fake = new FakeOpenAi({ tokenLimitParam: "max_completion_tokens" });
  const provider = fakeProvider("openai", fake.baseUrl, { tokenLimitParam: "max_completion_tokens" });
  const result = await new OpenAiAdapter(provider).complete(REQUEST);
  assert.equal(fake.requests[0]?.body?.max_completion_tokens, 64);
  assert.equal("max_tokens" in (fake.requests[0]?.body ?? {}), false);
  assert.equal(result.output, "reply: Will it rain?");
});

Deno.test("openai adapter passes the provider's reason when a reasoning model refuses max_tokens", async () => {
  await using fake = new FakeOpenAi({ tokenLimitParam: "max_completion_tokens" });
  const error = await providerErrorOf(
    new OpenAiAdapter(fakeProvider("openai", fake.baseUrl)).complete(REQUEST),
  );
  assert.equal(error.failure, "request");
  assert.equal(error.status, 400);
  assert.match(error.reason, /^Unsupported parameter: 'max_tokens' is not supported with this model/);
  const answer = error.toServiceError();
  assert.equal(answer.code, "invalid_request");
  assert.equal(answer.details?.reason, error.reason);
});

Deno.test("openai adapter maps usage to prompt, completion and total tokens", async () => {
  await using fake = new FakeOpenAi({ usage: () => ({ promptTokens: 31, completionTokens: 9 }) });
  const result = await new OpenAiAdapter(fakeProvider("openai", fake.baseUrl)).complete(REQUEST);
  assert.deepEqual(result, {
    output: "reply: Will it rain?",
    usage: { promptTokens: 31, completionTokens: 9, totalTokens: 40 },
  });
});

Deno.test("openai adapter keeps OpenRouter's reported cost in dollars as plain decimal text", async () => {
  await using fake = new FakeOpenAi({ costUsd: 0.00000015 });
  const result = await new OpenAiAdapter(fakeProvider("openai", fake.baseUrl)).complete(REQUEST);
  assert.equal(result.providerReportedCostUsd, "0.00000015");
  assert.equal(plainDecimal(0.0123), "0.0123");
  assert.equal(plainDecimal(1.5e-7), "0.00000015");
  assert.equal(plainDecimal(2e21), "2000000000000000000000");
  assert.equal(plainDecimal(0), "0");
});

Deno.test("openai adapter answers without usage when the provider reports none", async () => {
  await using fake = new FakeOpenAi();
  fake.respondNext("no_usage");
  const result = await new OpenAiAdapter(fakeProvider("openai", fake.baseUrl)).complete(REQUEST);
  assert.deepEqual(result, { output: "reply: Will it rain?" });
});

Deno.test("openai adapter refuses an unknown model with the provider's reason", async () => {
  await using fake = new FakeOpenAi();
  const http = recordedHttp();
  const adapter = new OpenAiAdapter(fakeProvider("openai", fake.baseUrl), http);
  const error = await providerErrorOf(adapter.complete({ ...REQUEST, model: "gpt-nope" }));
  assert.equal(error.failure, "request");
  assert.equal(error.status, 404);
  assert.equal(error.reason, "The model `gpt-nope` does not exist or you do not have access to it.");
  assert.deepEqual(http.attempts, [404]);
});

Deno.test("openai adapter treats a wrong key as the operator's account failing, without keeping its body", async () => {
  await using fake = new FakeOpenAi({ apiKey: "sk-other" });
  const error = await providerErrorOf(
    new OpenAiAdapter(fakeProvider("openai", fake.baseUrl)).complete(REQUEST),
  );
  assert.equal(error.failure, "account");
  assert.equal(error.status, 401);
  assert.equal(error.reason, "HTTP 401");
  assert.equal(error.toServiceError().code, "upstream_error");
});

Deno.test("openai adapter sends no authorization header for a provider without a key (local vLLM, Ollama)", async () => {
  await using fake = new FakeOpenAi();
  const adapter = new OpenAiAdapter(fakeProvider("openai", fake.baseUrl, { apiKey: null }));
  await providerErrorOf(adapter.complete(REQUEST));
  assert.equal(fake.requests[0]?.headers.has("authorization"), false);
});
