import assert from "node:assert/strict";
import {
  callCost,
  completionHold,
  MESSAGE_OVERHEAD_TOKENS,
  promptTokenBound,
  ProviderCatalog,
  providerCostMicro,
  REQUEST_OVERHEAD_TOKENS,
  utf8ByteLength,
  withMarkup,
} from "../../actors/gateway/mod.ts";

const MINI = { inputMicroPerMTok: 150_000n, outputMicroPerMTok: 600_000n };

Deno.test("provider cost is the token prices summed and divided by a million, rounded up", () => {
  // 1234 × 150000 + 567 × 600000 = 185,100,000 + 340,200,000 = 525,300,000 → 525.3 → 526
  assert.equal(providerCostMicro({ promptTokens: 1234, completionTokens: 567 }, MINI), 526n);
  // 1000 × 1e6 + 1000 × 1e6 = 2e9 → exactly 2000, nothing to round
  const echo = { inputMicroPerMTok: 1_000_000n, outputMicroPerMTok: 1_000_000n };
  assert.equal(providerCostMicro({ promptTokens: 1000, completionTokens: 1000 }, echo), 2000n);
  // one token at 1 micro per million tokens still costs 1 micro-unit
  const cheap = { inputMicroPerMTok: 1n, outputMicroPerMTok: 1n };
  assert.equal(providerCostMicro({ promptTokens: 1, completionTokens: 0 }, cheap), 1n);
  assert.equal(providerCostMicro({ promptTokens: 0, completionTokens: 0 }, MINI), 0n);
});

Deno.test("markup adds the basis points of the provider cost, rounded up", () => {
  assert.equal(withMarkup(526n, 500), 553n); // 526 × 500 / 10000 = 26.3 → 27
  assert.equal(withMarkup(10_000n, 250), 10_250n); // exactly 250
  assert.equal(withMarkup(1n, 1), 2n); // 0.0001 → 1
  assert.equal(withMarkup(999n, 0), 999n);
  assert.deepEqual(callCost({ promptTokens: 1234, completionTokens: 567 }, { price: MINI, markupBps: 500 }), {
    providerCostMicro: 526n,
    costMicro: 553n,
  });
});

Deno.test("utf8ByteLength counts UTF-8 bytes as TextEncoder writes them", () => {
  assert.equal(utf8ByteLength("a"), 1);
  assert.equal(utf8ByteLength("é"), 2);
  assert.equal(utf8ByteLength("€"), 3);
  assert.equal(utf8ByteLength("😀"), 4);
  assert.equal(utf8ByteLength("\ud800"), 3); // a lone surrogate is written as U+FFFD
  const mixed = "Grüße, 世界 😀 \udc00 end";
  assert.equal(utf8ByteLength(mixed), new TextEncoder().encode(mixed).length);
});

Deno.test("the prompt bound is the content bytes plus a per-message and a per-request overhead", () => {
  assert.equal(MESSAGE_OVERHEAD_TOKENS, 16);
  assert.equal(REQUEST_OVERHEAD_TOKENS, 128);
  const messages = [
    { role: "system" as const, content: "You are terse." }, // 14 bytes
    { role: "user" as const, content: "héllo" }, // 6 bytes
  ];
  assert.equal(promptTokenBound(messages), 128 + (16 + 14) + (16 + 6));
  assert.equal(promptTokenBound([]), 128);
  assert.equal(promptTokenBound([{ role: "user", content: "" }]), 144);
});

Deno.test("the hold is the cost of the prompt bound plus every requested completion token", () => {
  const catalog = new ProviderCatalog([{
    ...ProviderCatalog.builtIn().provider("echo")!,
    id: "mini",
    kind: "openai",
    models: [{ id: "gpt-4o-mini", ...MINI, maxOutputTokens: 16_384 }],
    markupBps: 500,
  }]);
  const resolved = catalog.resolve("mini", "gpt-4o-mini");
  const messages = [{ role: "system" as const, content: "You are terse." }, {
    role: "user" as const,
    content: "héllo",
  }];
  // 180 × 150000 + 100 × 600000 = 27,000,000 + 60,000,000 → 87; markup 4.35 → 5; hold 92
  assert.deepEqual(completionHold(resolved, { model: "gpt-4o-mini", messages, maxTokens: 100 }), {
    promptTokens: 180,
    completionTokens: 100,
    providerCostMicro: 87n,
    costMicro: 92n,
  });
});

Deno.test("a free model is still held for one micro-unit", () => {
  const free = { ...ProviderCatalog.builtIn().provider("echo")!, id: "local", kind: "openai" as const };
  const catalog = new ProviderCatalog([{
    ...free,
    models: [{ id: "llama", inputMicroPerMTok: 0n, outputMicroPerMTok: 0n, maxOutputTokens: 100 }],
  }]);
  const hold = completionHold(catalog.resolve("local", "llama"), {
    model: "llama",
    messages: [{ role: "user", content: "hi" }],
    maxTokens: 10,
  });
  assert.equal(hold.providerCostMicro, 0n);
  assert.equal(hold.costMicro, 1n);
});
