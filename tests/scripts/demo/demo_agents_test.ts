/**
 * The demo's agents (scripts/demo/agents/), run with the system interpreter as a validator would
 * call them: the shrinking agents move the market's prices toward uniform by their factor (the
 * LLM one also when its call cannot be made), and the noisy agent's noise comes from the demo's
 * seed alone, drawn exactly as the demo's own draws are.
 */
import assert from "node:assert/strict";
import { agentCode, DEMO_MINERS } from "../../../scripts/demo/demo_miners.ts";
import { seededUniform } from "../../../scripts/demo/demo_schedule.ts";
import { pythonTest, runPython, SYSTEM_PYTHON } from "../../support/python.ts";

const BINARY = {
  id: "polymarket-600480",
  question: "Heat vs. Warriors",
  outcomes: [{ outcomeId: "heat", name: "Heat" }, { outcomeId: "warriors", name: "Warriors" }],
  currentOutcomePrices: { heat: 0.8, warriors: 0.2 },
};

const THREE = {
  id: "polymarket-600386",
  question: "Liverpool vs. Man City: match result",
  outcomes: [
    { outcomeId: "l", name: "Liverpool" },
    { outcomeId: "d", name: "Draw" },
    { outcomeId: "m", name: "Man City" },
  ],
  currentOutcomePrices: { l: 0.235, d: 0.318, m: 0.447 },
};

interface Prediction {
  predictedOutcomeId: string;
  confidence: number;
  outcomeProbabilities: Record<string, number>;
  reasoning: { method: string; llm?: { code?: string } };
}

/** What `agent_main(event)` of the demo miner whose agent is `agent` returns, with the demo's `seed`. */
async function predict(agent: string, event: unknown, seed = 4): Promise<Prediction> {
  const miner = DEMO_MINERS.find((candidate) => candidate.agent === agent);
  assert.ok(miner, agent);
  const code = await agentCode(miner, seed);
  return await runPython(
    `import json\nns = {}\nexec(compile(${JSON.stringify(code)}, "agent.py", "exec"), ns)\n` +
      `print(json.dumps(ns["agent_main"](json.loads(${JSON.stringify(JSON.stringify(event))}))))`,
  ) as Prediction;
}

function assertClose(actual: Record<string, number>, expected: Record<string, number>): void {
  assert.deepEqual(Object.keys(actual), Object.keys(expected));
  for (const [id, value] of Object.entries(expected)) {
    assert.ok(Math.abs(actual[id]! - value) < 1e-12, `${id}: ${actual[id]} is not ${value}`);
  }
}

pythonTest({
  name:
    "the shrink agent predicts 0.5 + 0.6 × (price − 0.5), and 1/n + 0.6 × (price − 1/n) for three outcomes",
  python: SYSTEM_PYTHON,
  fn: async () => {
    const two = await predict("shrink 0.6", BINARY);
    assertClose(two.outcomeProbabilities, { heat: 0.68, warriors: 0.32 });
    assert.equal(two.predictedOutcomeId, "heat");
    assert.equal(two.confidence, two.outcomeProbabilities.heat);
    const three = await predict("shrink 0.6", THREE);
    const third = 1 / 3;
    assertClose(three.outcomeProbabilities, {
      l: third + 0.6 * (0.235 - third),
      d: third + 0.6 * (0.318 - third),
      m: third + 0.6 * (0.447 - third),
    });
  },
});

pythonTest({
  name: "the LLM agent shrinks by 0.8, from the market's prices when its call cannot be made",
  python: SYSTEM_PYTHON,
  fn: async () => {
    // No relay here: the call is refused as relay_unreachable (the demo's runs reach the echo provider).
    const prediction = await predict("LLM, shrink 0.8", BINARY);
    assertClose(prediction.outcomeProbabilities, { heat: 0.74, warriors: 0.26 });
    assert.equal(prediction.reasoning.llm?.code, "relay_unreachable");
    assert.match(prediction.reasoning.method, /market's prices shrunk toward uniform by 0.8/);
  },
});

pythonTest({
  name:
    "the noisy agent's noise is drawn from the demo's seed exactly as the demo draws, the same on every run",
  python: SYSTEM_PYTHON,
  fn: async () => {
    const first = await predict("noisy", THREE, 4);
    assert.deepEqual(await predict("noisy", THREE, 4), first);
    const raw = Object.fromEntries(
      THREE.outcomes.map(({ outcomeId }) => {
        const price = THREE.currentOutcomePrices[outcomeId as "l" | "d" | "m"];
        return [
          outcomeId,
          Math.max(price + 0.3 * (seededUniform(4, "noise", THREE.id, outcomeId) - 0.5), 0.01),
        ];
      }),
    );
    const total = Object.values(raw).reduce((sum, value) => sum + value, 0);
    assertClose(
      first.outcomeProbabilities,
      Object.fromEntries(Object.entries(raw).map(([id, v]) => [id, v / total])),
    );
    const other = await predict("noisy", THREE, 5);
    assert.notDeepEqual(other.outcomeProbabilities, first.outcomeProbabilities, "another seed, other noise");
    assert.match(first.reasoning.method, /seed 4/);
  },
});
