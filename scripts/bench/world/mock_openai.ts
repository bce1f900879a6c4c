/**
 * A mock OpenAI-compatible provider for `deno task bench:gateway`: every
 * `POST /v1/chat/completions` gets the same `chat.completion` (usage 42 / 9 / 51 tokens), after
 * an optional fixed delay. Prints `{"port":N}` on stdout once listening.
 *
 *   deno run --allow-net scripts/bench/world/mock_openai.ts [port] [delayMs]
 */
const port = Number(Deno.args[0] ?? 0);
const delayMs = Number(Deno.args[1] ?? 0);

const completion = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_767_225_600,
  model: "gpt-bench",
  choices: [{
    index: 0,
    message: { role: "assistant", content: "It will probably rain.", refusal: null },
    finish_reason: "stop",
  }],
  usage: { prompt_tokens: 42, completion_tokens: 9, total_tokens: 51 },
});

Deno.serve({
  hostname: "127.0.0.1",
  port,
  onListen: (address) => console.log(JSON.stringify({ port: address.port })),
}, async (request) => {
  if (request.method !== "POST" || new URL(request.url).pathname !== "/v1/chat/completions") {
    return new Response(JSON.stringify({ error: { message: "not found" } }), { status: 404 });
  }
  await request.arrayBuffer();
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  return new Response(completion, { headers: { "content-type": "application/json" } });
});
