import assert from "node:assert/strict";
import { ANTHROPIC_VERSION, AnthropicAdapter } from "../../actors/gateway/mod.ts";
import { FakeAnthropic } from "../support/fake_anthropic.ts";
import { fakeProvider, providerErrorOf } from "./provider_fixtures.ts";

const REQUEST = {
  model: "claude-test",
  messages: [
    { role: "system" as const, content: "Be brief." },
    { role: "user" as const, content: "Will it rain?" },
    { role: "assistant" as const, content: "Maybe." },
    { role: "system" as const, content: "Answer in French." },
    { role: "user" as const, content: "Sûr ?" },
  ],
  maxTokens: 50,
};

Deno.test("anthropic adapter sends a Messages request with its headers and the system turns on top", async () => {
  await using fake = new FakeAnthropic();
  const adapter = new AnthropicAdapter(
    fakeProvider("anthropic", fake.baseUrl, { extraBody: { metadata: { user_id: "fgw" } } }),
  );
  await adapter.complete({ ...REQUEST, temperature: 0.5, topP: 0.8, stop: "END" });
  const [sent] = fake.requests;
  assert.equal(sent?.path, "/v1/messages");
  assert.equal(sent?.headers.get("x-api-key"), "sk-ant-test");
  assert.equal(sent?.headers.get("anthropic-version"), ANTHROPIC_VERSION);
  assert.equal(sent?.headers.has("authorization"), false);
  assert.deepEqual(sent?.body, {
    metadata: { user_id: "fgw" },
    model: "claude-test",
    max_tokens: 50,
    messages: [
      { role: "user", content: "Will it rain?" },
      { role: "assistant", content: "Maybe." },
      { role: "user", content: "Sûr ?" },
    ],
    system: "Be brief.\n\nAnswer in French.",
    temperature: 0.5,
    top_p: 0.8,
    stop_sequences: ["END"],
  });
});

Deno.test("anthropic adapter sends no system field when the request has no system message", async () => {
  await using fake = new FakeAnthropic();
  await new AnthropicAdapter(fakeProvider("anthropic", fake.baseUrl)).complete({
    model: "claude-test",
    messages: [{ role: "user", content: "hi" }],
    maxTokens: 5,
    stop: ["a", "b"],
  });
  assert.deepEqual(fake.requests[0]?.body, {
    model: "claude-test",
    max_tokens: 5,
    messages: [{ role: "user", content: "hi" }],
    stop_sequences: ["a", "b"],
  });
});

Deno.test("anthropic adapter maps input and output tokens to the usage", async () => {
  await using fake = new FakeAnthropic({ usage: () => ({ promptTokens: 120, completionTokens: 33 }) });
  const result = await new AnthropicAdapter(fakeProvider("anthropic", fake.baseUrl)).complete(REQUEST);
  assert.deepEqual(result, {
    output: "reply: Sûr ?",
    usage: { promptTokens: 120, completionTokens: 33, totalTokens: 153 },
  });
});

Deno.test("anthropic adapter answers without usage when the provider reports none", async () => {
  await using fake = new FakeAnthropic();
  fake.respondNext("no_usage");
  const result = await new AnthropicAdapter(fakeProvider("anthropic", fake.baseUrl)).complete(REQUEST);
  assert.deepEqual(result, { output: "reply: Sûr ?" });
});

Deno.test("anthropic adapter refuses an unknown model with the provider's reason", async () => {
  await using fake = new FakeAnthropic();
  const adapter = new AnthropicAdapter(fakeProvider("anthropic", fake.baseUrl));
  const error = await providerErrorOf(adapter.complete({ ...REQUEST, model: "claude-nope" }));
  assert.equal(error.failure, "request");
  assert.equal(error.status, 404);
  assert.equal(error.reason, "model: claude-nope");
  assert.deepEqual(error.toServiceError().details, {
    provider: "fake-anthropic",
    upstreamStatus: 404,
    reason: "model: claude-nope",
  });
});

Deno.test("anthropic adapter treats a wrong key as the operator's account failing", async () => {
  await using fake = new FakeAnthropic({ apiKey: "sk-ant-other" });
  const error = await providerErrorOf(
    new AnthropicAdapter(fakeProvider("anthropic", fake.baseUrl)).complete(REQUEST),
  );
  assert.equal(error.failure, "account");
  assert.equal(error.toServiceError().code, "upstream_error");
});
