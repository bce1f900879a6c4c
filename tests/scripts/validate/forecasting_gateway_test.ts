/**
 * The agent's module `forecasting_gateway` (scripts/validate/python/) against a run's relay, which
 * forwards to a local fake of the gateway's validator route.
 */
import assert from "node:assert/strict";
import { type Relay, type RelayLimits, startRelay } from "../../../scripts/validate/relay/mod.ts";
import {
  type FakeValidatorGateway,
  startFakeValidatorGateway,
} from "../../support/fake_validator_gateway.ts";
import { pythonTest, runPython, SYSTEM_PYTHON } from "../../support/python.ts";
import { testSigner } from "../../support/validator_loop.ts";

const VALIDATOR = testSigner("module-validator");
const MINER = testSigner("module-miner");

interface Setup {
  fake: FakeValidatorGateway;
  relay: Relay;
  /** Runs Python whose `forecasting_gateway` reaches this relay. */
  python(code: string): Promise<unknown>;
  [Symbol.asyncDispose](): Promise<void>;
}

async function setUp(limits: Partial<RelayLimits> = {}): Promise<Setup> {
  const fake = startFakeValidatorGateway();
  const relay = await startRelay({
    base: fake.base,
    signer: VALIDATOR,
    fetch,
    nowMs: () => Date.now(),
    lease: { agentPredictionId: "ap_module_test", minerHotkey: MINER.hotkey },
    limits,
  });
  return {
    fake,
    relay,
    python: (code) => runPython(code, { FGW_RELAY_SOCKET: relay.socketPath }),
    async [Symbol.asyncDispose]() {
      fake.release();
      await relay.close();
      await fake.close();
    },
  };
}

const MESSAGES = `[{"role": "user", "content": "Will it rain in Lisbon?"}]`;

pythonTest({
  name: "complete returns the gateway's envelope, providers the catalog's providers",
  python: SYSTEM_PYTHON,
  fn: async () => {
    await using run = await setUp();
    const result = await run.python(`
import json
from forecasting_gateway import complete, providers
envelope = complete("echo", "echo-1", ${MESSAGES}, 16)
print(json.dumps({"envelope": envelope, "providers": providers()}))`) as {
      envelope: Record<string, unknown>;
      providers: unknown;
    };
    assert.equal(result.envelope.output, "Will it rain in Lisbon?");
    assert.equal(result.envelope.costMicro, "7");
    assert.deepEqual(result.providers, [{ id: "echo", models: ["echo-1"], allowsAnyModel: false }]);
    assert.equal(run.fake.received[0]?.body.agentPredictionId, "ap_module_test");
    assert.equal(run.fake.received[0]?.minerHotkey, MINER.hotkey);
  },
});

pythonTest({
  name: "complete sends temperature, top_p and stop as the gateway's fields, only when given",
  python: SYSTEM_PYTHON,
  fn: async () => {
    await using run = await setUp();
    await run.python(`
from forecasting_gateway import complete
complete("echo", "echo-1", ${MESSAGES}, 16, temperature=0.3, top_p=0.9, stop=["\\n"])
complete("echo", "echo-1", ${MESSAGES}, 16)
print("null")`);
    const [tuned, plain] = run.fake.received.map((call) => call.body);
    assert.deepEqual([tuned?.temperature, tuned?.topP, tuned?.stop, tuned?.maxTokens], [
      0.3,
      0.9,
      ["\n"],
      16,
    ]);
    assert.deepEqual(Object.keys(plain ?? {}).sort(), [
      "agentPredictionId",
      "maxTokens",
      "messages",
      "model",
      "provider",
    ]);
  },
});

pythonTest({
  name: "a refusal raises LlmError with the error body's status, code, message and details",
  python: SYSTEM_PYTHON,
  fn: async () => {
    await using run = await setUp({ maxCalls: 1 });
    const errors = await run.python(`
import json
from forecasting_gateway import LlmError, complete
def refusal(call):
    try:
        call()
    except LlmError as error:
        return [error.status, error.code, error.message, error.details]
complete("echo", "echo-1", ${MESSAGES}, 16)
print(json.dumps([
    refusal(lambda: complete("echo", "echo-1", ${MESSAGES}, 16)),
    refusal(lambda: complete("echo", "echo-1", [], 16)),
]))`);
    assert.deepEqual(errors, [
      [429, "relay_limit", "This run may make at most 1 LLM calls", { maxCalls: 1 }],
      [400, "invalid_request", "Invalid body", {
        fields: [{ field: "messages", problem: "Too small: expected array to have >=1 items" }],
      }],
    ]);
  },
});

pythonTest({
  name: "a relay that cannot be reached raises LlmError with no status and code relay_unreachable",
  python: SYSTEM_PYTHON,
  fn: async () => {
    const result = await runPython(
      `
import json
from forecasting_gateway import LlmError, SOCKET_PATH, complete
try:
    complete("echo", "echo-1", ${MESSAGES}, 16)
except LlmError as error:
    print(json.dumps([error.status, error.code, SOCKET_PATH]))`,
      { FGW_RELAY_SOCKET: "/nonexistent/relay.sock" },
    );
    assert.deepEqual(result, [null, "relay_unreachable", "/run/fgw/relay.sock"]);
  },
});

pythonTest({
  name: "30 threads calling at once: 20 are answered, the rest refused relay_limit, at most 4 at the gateway",
  python: SYSTEM_PYTHON,
  fn: async () => {
    await using run = await setUp();
    const counts = await run.python(`
import collections, json, threading
from forecasting_gateway import LlmError, complete
outcomes = []
def call():
    try:
        complete("echo", "echo-1", ${MESSAGES}, 16)
        outcomes.append("ok")
    except LlmError as error:
        outcomes.append(error.code)
threads = [threading.Thread(target=call) for _ in range(30)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps(collections.Counter(outcomes)))`);
    assert.deepEqual(counts, { ok: 20, relay_limit: 10 });
    assert.ok(run.fake.maxInFlight <= 4, `at most 4 in flight, saw ${run.fake.maxInFlight}`);
    assert.equal(run.fake.received.length, 20);
  },
});
