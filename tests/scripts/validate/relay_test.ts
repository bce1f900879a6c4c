/**
 * A run's LLM relay against a local fake of the gateway's validator route (which checks the
 * signature with the service's verifier and the forwarded body strictly): what it forwards, what
 * it refuses, its limits, and how it closes.
 */
import assert from "node:assert/strict";
import {
  type Relay,
  RELAY_LIMITS,
  type RelayLimits,
  startRelay,
} from "../../../scripts/validate/relay/mod.ts";
import {
  type FakeValidatorGateway,
  startFakeValidatorGateway,
} from "../../support/fake_validator_gateway.ts";
import { agentBody, errorCode, postCompletion, relayRequest, waitUntil } from "../../support/relay_client.ts";
import { testSigner } from "../../support/validator_loop.ts";

const VALIDATOR = testSigner("relay-validator");
const MINER = testSigner("relay-miner");
const LEASE = "ap_relay_test_lease";

interface Setup {
  fake: FakeValidatorGateway;
  relay: Relay;
  /** The relay's socket. */
  socket: string;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A fake gateway and a relay for one run of `MINER` under `LEASE` forwarding to it. */
async function setUp(
  limits: Partial<RelayLimits> = {},
  fetcher: (url: string, init: RequestInit) => Promise<Response> = fetch,
): Promise<Setup> {
  const fake = startFakeValidatorGateway();
  const relay = await startRelay({
    base: fake.base,
    signer: VALIDATOR,
    fetch: fetcher,
    nowMs: () => Date.now(),
    lease: { agentPredictionId: LEASE, minerHotkey: MINER.hotkey },
    limits,
  });
  return {
    fake,
    relay,
    socket: relay.socketPath,
    async [Symbol.asyncDispose]() {
      fake.release();
      await relay.close();
      await fake.close();
    },
  };
}

Deno.test("the relay forwards a call signed as the validator, for the run's lease and miner, and passes the answer on", async () => {
  await using run = await setUp();
  const answer = await postCompletion(
    run.socket,
    agentBody("Will BTC close above $100k?", { temperature: 0.2 }),
  );
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  assert.equal(answer.json.output, "Will BTC close above $100k?");
  assert.equal(answer.json.costMicro, "7");
  assert.deepEqual(run.fake.refusedCodes, []);
  assert.equal(run.fake.received.length, 1);
  const [call] = run.fake.received;
  assert.equal(call?.validatorHotkey, VALIDATOR.hotkey);
  assert.equal(call?.minerHotkey, MINER.hotkey);
  assert.equal(call?.body.agentPredictionId, LEASE);
  assert.equal(call?.body.temperature, 0.2);
  assert.ok(!("minerHotkey" in (call?.body ?? {})));
  assert.match(call?.requestId ?? "", /^relay-/);
  assert.deepEqual(run.relay.stats(), { calls: 1, charged: 1, costMicro: 7n, refused: 0 });
});

const REFUSED_FIELDS: [string, Record<string, unknown>][] = [
  ["minerHotkey", { minerHotkey: testSigner("another-miner").hotkey }],
  ["agentPredictionId", { agentPredictionId: "ap_someone_elses_lease" }],
  ["stream", { stream: true }],
  ["tools", { tools: [] }],
];

for (const [field, extra] of REFUSED_FIELDS) {
  Deno.test(`a body naming ${field} is refused 400 naming it, and nothing is forwarded`, async () => {
    await using run = await setUp();
    const answer = await postCompletion(run.socket, agentBody("hello", extra));
    assert.equal(answer.status, 400);
    const error = answer.json.error as { code: string; details: { fields: { field: string }[] } };
    assert.equal(error.code, "invalid_request");
    assert.deepEqual(error.details.fields.map((entry) => entry.field), [field]);
    assert.match(String(answer.json.requestId), /^relay-/);
    assert.equal(run.fake.received.length, 0);
    assert.equal(run.relay.stats().calls, 0);
  });
}

Deno.test("a body that is not JSON, not sent as JSON, or over the limit is refused (400, 415, 413), nothing forwarded", async () => {
  await using run = await setUp({ maxBodyBytes: 2_048 });
  const json = { "content-type": "application/json" };
  const cases: [string, Record<string, string>, number, string][] = [
    ["{not json", json, 400, "invalid_request"],
    [agentBody(), { "content-type": "text/plain" }, 415, "unsupported_media_type"],
    [agentBody("x".repeat(4_096)), json, 413, "payload_too_large"],
  ];
  for (const [body, headers, status, code] of cases) {
    const answer = await postCompletion(run.socket, body, headers);
    assert.equal(answer.status, status, code);
    assert.equal(errorCode(answer), code);
  }
  assert.equal(run.fake.received.length, 0);
});

Deno.test("five calls at once: four are at the gateway, the fifth waits its turn and then goes", async () => {
  await using run = await setUp();
  run.fake.hold();
  const calls = Array.from({ length: 5 }, (_, i) => postCompletion(run.socket, agentBody(`call ${i}`)));
  await waitUntil(() => run.fake.inFlight === 4, "four calls are at the gateway");
  assert.equal(run.fake.received.length, 4, "the fifth is not forwarded while four are in flight");
  run.fake.release();
  const answers = await Promise.all(calls);
  assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200, 200, 200]);
  assert.equal(run.fake.received.length, 5);
  assert.equal(run.fake.maxInFlight, 4);
});

Deno.test("the call after --llm-max-calls is refused 429 relay_limit in the service's error body, never forwarded", async () => {
  await using run = await setUp();
  for (let i = 0; i < RELAY_LIMITS.maxCalls; i++) {
    assert.equal((await postCompletion(run.socket, agentBody(`call ${i}`))).status, 200);
  }
  const refused = await postCompletion(run.socket, agentBody("one more"));
  assert.equal(refused.status, 429);
  assert.deepEqual(refused.json.error, {
    code: "relay_limit",
    message: "This run may make at most 20 LLM calls",
    details: { maxCalls: 20 },
  });
  assert.match(String(refused.json.requestId), /^relay-/);
  assert.equal(run.fake.received.length, 20);
  assert.deepEqual(run.relay.stats(), { calls: 20, charged: 20, costMicro: 140n, refused: 1 });
});

Deno.test("100 calls at once: 20 are forwarded, never more than 4 at a time; the others are refused or cut off", async () => {
  await using run = await setUp();
  const outcomes = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      postCompletion(run.socket, agentBody(`call ${i}`)).then(
        (answer) => answer.status === 200 ? "ok" : String(errorCode(answer)),
        () => "connection closed",
      )),
  );
  const count = (what: string) => outcomes.filter((outcome) => outcome === what).length;
  assert.equal(count("ok"), 20);
  assert.equal(count("relay_limit") + count("connection closed"), 80, JSON.stringify(outcomes));
  assert.equal(run.fake.received.length, 20);
  assert.ok(run.fake.maxInFlight <= 4, `at most 4 in flight, saw ${run.fake.maxInFlight}`);
  const providers = await relayRequest(run.socket, { method: "GET", path: "/v1/gateway/providers" });
  assert.equal(providers.status, 200, "the relay still answers");
});

Deno.test("close() waits for a call in flight within its grace: the agent gets its answer, the stats count it", async () => {
  await using run = await setUp();
  run.fake.hold();
  const call = postCompletion(run.socket, agentBody("late"));
  await waitUntil(() => run.fake.inFlight === 1, "the call is at the gateway");
  const closing = run.relay.close({ graceMs: 60_000 });
  run.fake.release();
  assert.equal((await call).status, 200);
  assert.deepEqual(await closing, { calls: 1, charged: 1, costMicro: 7n, refused: 0 });
  assert.equal(
    await Deno.stat(run.relay.socketPath).then(() => true, () => false),
    false,
    "the socket is gone",
  );
});

Deno.test("close() past its grace abandons the call in flight: the agent is answered 503, the call is not counted charged", async () => {
  await using run = await setUp();
  run.fake.hold();
  const call = postCompletion(run.socket, agentBody("abandoned"));
  await waitUntil(() => run.fake.inFlight === 1, "the call is at the gateway");
  assert.deepEqual(await run.relay.close({ graceMs: 0 }), {
    calls: 1,
    charged: 0,
    costMicro: 0n,
    refused: 0,
  });
  const answer = await call;
  assert.equal(answer.status, 503);
  assert.equal(errorCode(answer), "unavailable");
  await assert.rejects(
    postCompletion(run.socket, agentBody()),
    "the socket is closed",
  );
});

Deno.test("the provider listing is the gateway's public one, asked once per run", async () => {
  await using run = await setUp();
  for (let i = 0; i < 3; i++) {
    const response = await relayRequest(run.socket, { method: "GET", path: "/v1/gateway/providers" });
    assert.equal(response.status, 200);
    assert.deepEqual(response.json, {
      providers: [{ id: "echo", models: ["echo-1"], allowsAnyModel: false }],
    });
  }
  assert.equal(run.fake.providerRequests, 1);
});

Deno.test("any other path is 404 in the service's error body", async () => {
  await using run = await setUp();
  for (const [method, path] of [["GET", "/v1/events"], ["GET", "/v1/gateway/completions"]] as const) {
    const response = await relayRequest(run.socket, { method, path });
    assert.equal(response.status, 404);
    assert.equal(errorCode(response), "not_found");
  }
});

Deno.test("the gateway's refusal is passed on as it came, status, body and Retry-After, and not counted charged", async () => {
  const body = JSON.stringify({ error: { code: "unavailable", message: "Busy" }, requestId: "r-1" });
  const headers = { "content-type": "application/json", "retry-after": "3" };
  const refusing = () => Promise.resolve(new Response(body, { status: 503, headers }));
  await using run = await setUp({}, refusing);
  const response = await postCompletion(run.socket, agentBody());
  assert.equal(response.status, 503);
  assert.equal(response.text, body);
  assert.equal(response.headers["retry-after"], "3");
  assert.deepEqual(run.relay.stats(), { calls: 1, charged: 0, costMicro: 0n, refused: 0 });
});

Deno.test("a gateway that cannot be reached is 503 unavailable for the agent", async () => {
  const unreachable = () => Promise.reject(new TypeError("connection refused"));
  await using run = await setUp({}, unreachable);
  const answer = await postCompletion(run.socket, agentBody());
  assert.equal(answer.status, 503);
  assert.equal(errorCode(answer), "unavailable");
});

Deno.test("a connection beyond the relay's limit is closed as it opens", async () => {
  await using run = await setUp({ maxConnections: 2 });
  const held = [
    await Deno.connect({ transport: "unix", path: run.relay.socketPath }),
    await Deno.connect({ transport: "unix", path: run.relay.socketPath }),
  ];
  const third = await Deno.connect({ transport: "unix", path: run.relay.socketPath });
  const read = await third.read(new Uint8Array(64)).catch(() => null);
  assert.equal(read, null, "the third connection is closed without an answer");
  third.close();
  for (const conn of held) conn.close();
});

Deno.test("a request whose headers stop half-way is answered 408 and closed at the header timeout", async () => {
  await using run = await setUp({ headersTimeoutMs: 200, requestTimeoutMs: 300 });
  const conn = await Deno.connect({ transport: "unix", path: run.relay.socketPath });
  await conn.write(new TextEncoder().encode("POST /v1/gateway/completions HTTP/1.1\r\nHost: relay\r\n"));
  const buffer = new Uint8Array(256);
  const read = await conn.read(buffer);
  assert.match(new TextDecoder().decode(buffer.subarray(0, read ?? 0)), /^HTTP\/1\.1 408/);
  conn.close();
});
