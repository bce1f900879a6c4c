import assert from "node:assert/strict";
import { cutUtf8, EchoAdapter } from "../../actors/gateway/mod.ts";

Deno.test("echo answers the last user message, cut to maxTokens × 4 bytes", async () => {
  const result = await new EchoAdapter().complete({
    model: "echo-1",
    messages: [
      { role: "system", content: "ignored" }, // 7 bytes
      { role: "user", content: "first" }, // 5 bytes
      { role: "assistant", content: "ok" }, // 2 bytes
      { role: "user", content: "hello world" }, // 11 bytes
    ],
    maxTokens: 2,
  });
  // output "hello wo" (8 bytes) → 2 tokens; prompt 25 bytes → ⌈25 / 4⌉ = 7 tokens
  assert.deepEqual(result, {
    output: "hello wo",
    usage: { promptTokens: 7, completionTokens: 2, totalTokens: 9 },
  });
});

Deno.test("echo cuts between characters, leaving out one that would not fit whole", () => {
  const text = "aé€😀"; // 1 + 2 + 3 + 4 bytes
  assert.equal(cutUtf8(text, 4), "aé");
  assert.equal(cutUtf8(text, 6), "aé€");
  assert.equal(cutUtf8(text, 9), "aé€");
  assert.equal(cutUtf8(text, 10), text);
  assert.equal(cutUtf8(text, 0), "");
});

Deno.test("echo answers an empty output when there is no user message", async () => {
  const result = await new EchoAdapter().complete({
    model: "echo-1",
    messages: [{ role: "system", content: "abcd" }],
    maxTokens: 10,
  });
  assert.deepEqual(result, { output: "", usage: { promptTokens: 1, completionTokens: 0, totalTokens: 1 } });
});

Deno.test("echo is cancelled by an aborted signal", async () => {
  const controller = new AbortController();
  controller.abort(new Error("shutting down"));
  await assert.rejects(
    new EchoAdapter().complete({ model: "echo-1", messages: [], maxTokens: 1 }, {
      signal: controller.signal,
    }),
    /shutting down/,
  );
});
