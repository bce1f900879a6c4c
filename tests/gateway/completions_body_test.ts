import assert from "node:assert/strict";
import { completionInit, COMPLETIONS, ECHO_CALL, gatewayWorld, usageOf } from "./gateway_service.ts";

/** The fields a 400 names, after asserting the status and code. */
async function refusedFields(response: Response): Promise<string[]> {
  const body = await response.json();
  assert.equal(response.status, 400, JSON.stringify(body));
  assert.equal(body.error.code, "invalid_request");
  return body.error.details.fields.map((f: { field: string }) => f.field);
}

Deno.test("any field beyond the strict request schema is a 400 naming it", async () => {
  await using w = await gatewayWorld();
  for (const extra of ["stream", "n", "tools", "response_format", "max_tokens", "user"]) {
    const fields = await refusedFields(await w.complete({ ...ECHO_CALL, [extra]: true }));
    assert.deepEqual(fields, [extra]);
  }
  const named = await w.complete({
    ...ECHO_CALL,
    messages: [{ role: "user", content: "hi", name: "bob" }],
  });
  assert.deepEqual(await refusedFields(named), ["messages.0.name"]);
  assert.equal(w.fake.requests.length, 0);
  assert.deepEqual(await usageOf(w.service.request, w.orgId), []);
});

Deno.test("bad values of the request's own fields are 400s naming each field", async () => {
  await using w = await gatewayWorld();
  const cases: [Record<string, unknown>, string[]][] = [
    [{ messages: [{ role: "tool", content: "x" }] }, ["messages.0.role"]],
    [{ messages: [{ role: "user", content: [{ type: "text", text: "x" }] }] }, ["messages.0.content"]],
    [{ messages: [] }, ["messages"]],
    [{ maxTokens: 0 }, ["maxTokens"]],
    [{ maxTokens: 1.5 }, ["maxTokens"]],
    [{ maxTokens: "16" }, ["maxTokens"]],
    // One problem each, never a second one for the same field (1e300 is "at most", not also "not an int").
    [{ maxTokens: 1e300 }, ["maxTokens"]],
    [{ maxTokens: -1e300 }, ["maxTokens"]],
    [{ maxTokens: 2_000_000 }, ["maxTokens"]],
    [{ temperature: 3 }, ["temperature"]],
    [{ topP: -0.1 }, ["topP"]],
    [{ stop: "" }, ["stop"]],
    [{ minerHotkey: "not-a-hotkey" }, ["minerHotkey"]],
    [{ provider: "" }, ["provider"]],
    // Kept in the usage record: text PostgreSQL can store (it refuses NUL), readable in a log.
    [{ model: "echo\u0000" }, ["model"]],
    [{ model: "echo\n" }, ["model"]],
    [{ model: "echo\ud800" }, ["model"]],
  ];
  for (const [change, fields] of cases) {
    assert.deepEqual(
      await refusedFields(await w.complete({ ...ECHO_CALL, ...change })),
      fields,
      JSON.stringify(change),
    );
  }
  const { provider: _, ...withoutProvider } = ECHO_CALL;
  assert.deepEqual(await refusedFields(await w.complete(withoutProvider)), ["provider"]);
});

Deno.test("an unknown provider or model, or maxTokens above the model's limit, is a 400 naming the field", async () => {
  await using w = await gatewayWorld();
  assert.deepEqual(await refusedFields(await w.complete({ ...ECHO_CALL, provider: "openai" })), ["provider"]);
  assert.deepEqual(await refusedFields(await w.complete({ ...ECHO_CALL, model: "gpt-4o" })), ["model"]);
  assert.deepEqual(await refusedFields(await w.complete({ ...ECHO_CALL, maxTokens: 32_769 })), ["maxTokens"]);
  assert.equal((await w.complete({ ...ECHO_CALL, maxTokens: 32_768 })).status, 200);
  assert.equal((await usageOf(w.service.request, w.orgId)).length, 1);
});

Deno.test("sampling fields are passed on to the provider under its own names", async () => {
  await using w = await gatewayWorld();
  const response = await w.complete({
    ...ECHO_CALL,
    provider: "fake",
    model: "gpt-test",
    temperature: 0.2,
    topP: 0.9,
    stop: ["\n\n"],
  });
  assert.equal(response.status, 200, await response.text());
  const sent = w.fake.requests[0]?.body;
  assert.deepEqual(
    [sent?.temperature, sent?.top_p, sent?.stop, sent?.max_tokens],
    [0.2, 0.9, ["\n\n"], ECHO_CALL.maxTokens],
  );
});

Deno.test("a body over FGW_GATEWAY_MAX_BODY_BYTES is 413; one that is not JSON is 415 or 400", async () => {
  await using w = await gatewayWorld({ env: { FGW_GATEWAY_MAX_BODY_BYTES: "2048" } });
  const big = { ...ECHO_CALL, messages: [{ role: "user", content: "x".repeat(2_100) }] };
  const tooLarge = await w.complete(big);
  assert.equal(tooLarge.status, 413);
  const body = await tooLarge.json();
  assert.equal(body.error.code, "payload_too_large");
  assert.equal(body.error.details.maxBytes, 2048);
  const fits = { ...ECHO_CALL, messages: [{ role: "user", content: "x".repeat(1_900) }] };
  assert.equal((await w.complete(fits)).status, 200);
  const init = completionInit(w.apiKey, ECHO_CALL, { "content-type": "text/plain" });
  const wrongType = await w.service.request(COMPLETIONS, init);
  assert.equal(wrongType.status, 415);
  assert.equal((await wrongType.json()).error.code, "unsupported_media_type");
  const malformed = await w.complete('{"provider":');
  assert.equal(malformed.status, 400);
  assert.equal((await usageOf(w.service.request, w.orgId)).length, 1);
});
