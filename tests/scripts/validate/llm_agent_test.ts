/**
 * `deno task validate` runs an agent with its LLM relay: the shipped LLM example agent's call goes
 * to the validator completions route for its own lease and miner, signed as the validator, and the
 * run's result counts it; the example gives a valid prediction whatever the model answers. These
 * runs are bare (the starter of `--unsafe-no-sandbox`): the same example runs in the sandbox in
 * sandbox/sandboxed_run_test.ts.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { signerFromSecretHex } from "../../../actors/validators/mod.ts";
import { bareStarter, NO_SANDBOX } from "../../../scripts/validate/bare_starter.ts";
import {
  AGENT_LIB_DIR,
  type Submitted,
  type ValidateDeps,
  validateOnce,
} from "../../../scripts/validate/validate.ts";
import {
  type FakeValidatorGateway,
  startFakeValidatorGateway,
} from "../../support/fake_validator_gateway.ts";
import { addCredits } from "../../support/access.ts";
import { pythonTest, runPython, SYSTEM_PYTHON } from "../../support/python.ts";
import { type Loop, openLoop, testSigner, uploadAgent } from "../../support/validator_loop.ts";

const VALIDATOR = signerFromSecretHex("6b".repeat(32));
const MINER = testSigner("llm-agent-miner");
const LLM_EXAMPLE_PATH = fileURLToPath(
  new URL("../../../docs/examples/llm_agent_example.py", import.meta.url),
);
const LLM_EXAMPLE = await Deno.readTextFile(LLM_EXAMPLE_PATH);
const CREDIT = 1_000_000n;

async function loopWithLlmExample(): Promise<Loop> {
  const loop = await openLoop({ validators: [VALIDATOR], miners: [MINER], events: 1 });
  loop.service.clock.advance(1_000);
  await uploadAgent(loop.service.storage, MINER.hotkey, LLM_EXAMPLE, loop.service.clock.now());
  await loop.sync();
  return loop;
}

/** The validator's deps: its requests to `loop`'s service in process, the gateway routes to `fake` if given. */
function depsFor(loop: Loop, fake?: FakeValidatorGateway): ValidateDeps {
  return {
    base: "http://gateway.test",
    signer: VALIDATOR,
    fetch: (url, init) => {
      const { pathname, search } = new URL(url);
      if (fake && pathname.startsWith("/v1/gateway/")) return fetch(`${fake.base}${pathname}${search}`, init);
      return loop.service.request(pathname + search, init);
    },
    nowMs: () => loop.service.clock.now(),
    run: { starter: bareStarter({ python: SYSTEM_PYTHON, libDir: AGENT_LIB_DIR }), timeoutMs: 60_000 },
  };
}

async function submittedRun(deps: ValidateDeps): Promise<Submitted> {
  const result = await validateOnce(deps);
  assert.ok(result.outcome === "submitted", JSON.stringify(result));
  return result;
}

async function reasoningOf(loop: Loop, agentPredictionId: string) {
  const trace = await loop.service.storage.assignments.getTrace(agentPredictionId) as {
    trace: { reasoning: { method: string; llm: Record<string, unknown> } };
  };
  return trace.trace.reasoning;
}

pythonTest({
  name:
    "the LLM example agent's call goes to the validator route for its own lease and miner, and the run counts it",
  python: SYSTEM_PYTHON,
  fn: async () => {
    const loop = await loopWithLlmExample();
    await using _service = loop.service;
    const fake = startFakeValidatorGateway();
    try {
      const result = await submittedRun(depsFor(loop, fake));
      assert.equal(result.failure, null);
      assert.deepEqual([result.llmCalls, result.llmCostMicro, result.sandbox], [1, "7", NO_SANDBOX]);
      assert.deepEqual(fake.refusedCodes, []);
      const [call] = fake.received;
      assert.equal(call?.validatorHotkey, VALIDATOR.hotkey);
      assert.equal(call?.minerHotkey, MINER.hotkey);
      assert.equal(call?.body.agentPredictionId, result.agentPredictionId);
      const stored = await loop.service.storage.assignments.getPrediction(result.agentPredictionId);
      assert.equal(stored?.validation.isValid, true, JSON.stringify(stored?.validation));
      // The echo provider answers the prompt itself: no probabilities to read, the market's are used.
      const reasoning = await reasoningOf(loop, result.agentPredictionId);
      assert.match(reasoning.method, /^market prices/);
      assert.match(String(reasoning.llm.answer), /Outcomes \(id: name, market price\)/);
    } finally {
      await fake.close();
    }
  },
});

pythonTest({
  name:
    "the LLM example agent run against the service itself: its call succeeds, billed to the miner's org, and the prediction is valid",
  python: SYSTEM_PYTHON,
  fn: async () => {
    const loop = await loopWithLlmExample();
    await using _service = loop.service;
    await addCredits(loop.service.request, loop.orgId, String(CREDIT), "miner-org");
    const result = await submittedRun(depsFor(loop));
    assert.equal(result.failure, null);
    const stored = await loop.service.storage.assignments.getPrediction(result.agentPredictionId);
    assert.equal(stored?.validation.isValid, true);
    const { llm } = await reasoningOf(loop, result.agentPredictionId);
    assert.equal(typeof llm.costMicro, "string", JSON.stringify(llm));
    assert.deepEqual([result.llmCalls, result.llmCostMicro], [1, llm.costMicro]);
    const balance = (await loop.service.storage.billing.getAccount(loop.orgId))?.balanceMicro;
    assert.equal(balance, CREDIT - BigInt(result.llmCostMicro));
  },
});

pythonTest({
  name: "a run whose calls are spent (--llm-max-calls 0) is refused relay_limit and still predicts",
  python: SYSTEM_PYTHON,
  fn: async () => {
    const loop = await loopWithLlmExample();
    await using _service = loop.service;
    const fake = startFakeValidatorGateway();
    try {
      const result = await submittedRun({ ...depsFor(loop, fake), relay: { maxCalls: 0 } });
      assert.deepEqual([result.failure, result.llmCalls, result.llmCostMicro], [null, 0, "0"]);
      assert.equal(fake.received.length, 0);
      const { llm } = await reasoningOf(loop, result.agentPredictionId);
      assert.deepEqual([llm.status, llm.code], [429, "relay_limit"]);
    } finally {
      await fake.close();
    }
  },
});

/** Loads the example with `complete` answering `output`, and runs it on a two-outcome event. */
function exampleAnswering(output: string): Promise<unknown> {
  return runPython(`
import importlib.util, json
import forecasting_gateway
forecasting_gateway.complete = lambda *args, **kwargs: {"output": ${JSON.stringify(output)}, "costMicro": "5"}
spec = importlib.util.spec_from_file_location("example", ${JSON.stringify(LLM_EXAMPLE_PATH)})
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)
event = {"question": "Rain?", "outcomes": [{"outcomeId": "yes", "name": "Yes"}, {"outcomeId": "no", "name": "No"}],
         "currentOutcomePrices": {"yes": 0.25, "no": 0.75}}
print(json.dumps(example.agent_main(event)))`);
}

pythonTest({
  name: "the LLM example averages the model's probabilities with the market's when it can read them",
  python: SYSTEM_PYTHON,
  fn: async () => {
    const prediction = await exampleAnswering('Sure. {"yes": 0.5, "no": 0.5} is my answer.') as {
      outcomeProbabilities: Record<string, number>;
      predictedOutcomeId: string;
    };
    assert.deepEqual(prediction.outcomeProbabilities, { yes: 0.375, no: 0.625 });
    assert.equal(prediction.predictedOutcomeId, "no");
  },
});

for (
  const output of [
    "no JSON here",
    '{"yes": 0.6}',
    '{"yes": -1, "no": 2}',
    '{"yes": true, "no": 0}',
    "{broken",
  ]
) {
  pythonTest({
    name: `the LLM example falls back on the market's prices when the model answers ${output}`,
    python: SYSTEM_PYTHON,
    fn: async () => {
      const prediction = await exampleAnswering(output) as {
        outcomeProbabilities: Record<string, number>;
        reasoning: { method: string };
      };
      assert.deepEqual(prediction.outcomeProbabilities, { yes: 0.25, no: 0.75 });
      assert.match(prediction.reasoning.method, /^market prices/);
    },
  });
}
