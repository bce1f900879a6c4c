/**
 * The LLM example agent run in the sandbox through the validator: its call leaves the sandbox by
 * `/run/fgw/relay.sock` alone (the relay's socket in a folder the agent user can reach), imports
 * `forecasting_gateway` from `/run/fgw/lib`, and reaches the validator completions route for its
 * own lease and miner; in one turn and with `--loop`, whose lines name the sandbox. The route is a
 * local fake (tests/support/fake_validator_gateway.ts) that notes what reached it; the same run
 * through the service's own route, billed, is sandboxed_llm_billing_test.ts.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { signerFromSecretHex } from "../../../../actors/validators/mod.ts";
import { sandboxName, sandboxStarter } from "../../../../scripts/validate/sandbox/mod.ts";
import {
  AGENT_LIB_DIR,
  runValidate,
  type ValidateDeps,
  type ValidateIo,
  validateOnce,
} from "../../../../scripts/validate/validate.ts";
import {
  type FakeValidatorGateway,
  startFakeValidatorGateway,
} from "../../../support/fake_validator_gateway.ts";
import { type Loop, openLoop, testSigner, uploadAgent } from "../../../support/validator_loop.ts";
import { needsSandbox, sandboxHost } from "../../../support/sandbox_host.ts";

const VALIDATOR_SECRET = "3d".repeat(32);
const VALIDATOR = signerFromSecretHex(VALIDATOR_SECRET);
const MINER = testSigner("sandboxed-llm-miner");
const LLM_EXAMPLE = await Deno.readTextFile(
  fileURLToPath(new URL("../../../../docs/examples/llm_agent_example.py", import.meta.url)),
);
/** Generous: the machine may be loaded by other tests. */
const TIMEOUT_MS = 120_000;

async function loopWithLlmExample(): Promise<Loop> {
  const loop = await openLoop({ validators: [VALIDATOR], miners: [MINER], events: 1 });
  loop.service.clock.advance(1_000);
  await uploadAgent(loop.service.storage, MINER.hotkey, LLM_EXAMPLE, loop.service.clock.now());
  await loop.sync();
  return loop;
}

/** The validator's requests: the gateway routes to `fake`, the others to `loop`'s service in process. */
function routed(loop: Loop, fake: FakeValidatorGateway): ValidateDeps["fetch"] {
  return (url, init) => {
    const { pathname, search } = new URL(url);
    if (pathname.startsWith("/v1/gateway/")) return fetch(`${fake.base}${pathname}${search}`, init);
    return loop.service.request(pathname + search, init);
  };
}

async function assertRelayedFor(loop: Loop, fake: FakeValidatorGateway, lease: string): Promise<void> {
  assert.deepEqual(fake.refusedCodes, []);
  assert.equal(fake.received.length, 1);
  const [call] = fake.received;
  assert.equal(call?.validatorHotkey, VALIDATOR.hotkey);
  assert.equal(call?.minerHotkey, MINER.hotkey);
  assert.equal(call?.body.agentPredictionId, lease);
  const trace = await loop.service.storage.assignments.getTrace(lease) as {
    trace: { reasoning: { llm: Record<string, unknown> } };
  };
  // The echo route answers the prompt itself: the call went through and was answered.
  assert.match(String(trace.trace.reasoning.llm.answer), /Outcomes \(id: name, market price\)/);
}

Deno.test({
  ...needsSandbox(
    "the LLM example agent runs sandboxed: its call goes through /run/fgw/relay.sock to the route for its own lease and miner",
  ),
  fn: async () => {
    const host = await sandboxHost();
    const loop = await loopWithLlmExample();
    await using _service = loop.service;
    const fake = startFakeValidatorGateway();
    try {
      const result = await validateOnce({
        base: "http://gateway.test",
        signer: VALIDATOR,
        fetch: routed(loop, fake),
        nowMs: loop.service.clock.now,
        run: { starter: sandboxStarter(host, { libDir: AGENT_LIB_DIR }), timeoutMs: TIMEOUT_MS },
      });
      assert.ok(result.outcome === "submitted" && result.failure === null, JSON.stringify(result));
      assert.deepEqual([result.llmCalls, result.llmCostMicro, result.sandbox], [1, "7", sandboxName(host)]);
      await assertRelayedFor(loop, fake, result.agentPredictionId);
      const stored = await loop.service.storage.assignments.getPrediction(result.agentPredictionId);
      assert.equal(stored?.validation.isValid, true, JSON.stringify(stored?.validation));
    } finally {
      await fake.close();
    }
  },
});

Deno.test({
  ...needsSandbox(
    "--loop sandboxes its runs by default, gives them forecasting_gateway, and names the sandbox in each line",
  ),
  fn: async () => {
    const host = await sandboxHost();
    const loop = await loopWithLlmExample();
    await using _service = loop.service;
    const fake = startFakeValidatorGateway();
    const stop = new AbortController();
    const lines: Record<string, unknown>[] = [];
    const errors: string[] = [];
    const io: ValidateIo = {
      env: { FGW_SIGNING_SECRET: VALIDATOR_SECRET, PATH: Deno.env.get("PATH") },
      out: (text) => lines.push(JSON.parse(text)),
      err: (text) => errors.push(text),
      fetch: routed(loop, fake),
      nowMs: loop.service.clock.now,
      signal: stop.signal,
      // The one assignment is taken: the first wait for another ends the service.
      sleep: () => Promise.resolve(stop.abort()),
    };
    try {
      const argv = ["--base", "http://gateway.test", "--loop", "--timeout-ms", String(TIMEOUT_MS)];
      assert.equal(await runValidate(argv, io), 0, errors.join("\n"));
      assert.equal(lines.length, 1, errors.join("\n"));
      const [line] = lines;
      assert.deepEqual(
        [line?.outcome, line?.llmCalls, line?.llmCostMicro, line?.sandbox],
        ["submitted", 1, "7", sandboxName(host)],
      );
      assert.ok(!errors.some((text) => text.includes("WITHOUT the sandbox")));
      await assertRelayedFor(loop, fake, String(line?.lease));
    } finally {
      await fake.close();
    }
  },
});
