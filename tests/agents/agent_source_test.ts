import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { checkAgentSource, PARSE_BUDGET_MS, positionAt } from "../../actors/agents/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { pythonTest } from "../support/python.ts";

const LIMIT = { maxBytes: 1_048_576 };
const EXAMPLE = new URL("../../docs/examples/agent_example.py", import.meta.url);
const LLM_EXAMPLE = new URL("../../docs/examples/llm_agent_example.py", import.meta.url);

/** The ServiceError `checkAgentSource(code)` throws. */
async function refusal(
  code: string,
  maxBytes = LIMIT.maxBytes,
  workClock?: () => number,
): Promise<ServiceError> {
  try {
    await checkAgentSource(code, { maxBytes, ...(workClock ? { workClock } : {}) });
  } catch (error) {
    assert.ok(error instanceof ServiceError, `expected a ServiceError, got ${error}`);
    return error;
  }
  assert.fail(`accepted:\n${code}`);
}

Deno.test("a top-level def, async def or decorated def of agent_main is accepted, with its digest and size", async () => {
  const sources = [
    "def agent_main(event):\n    return {}\n",
    "import json\n\nasync def agent_main(event):\n    return json.loads('{}')\n",
    "@functools.cache\n@other(1)\ndef agent_main(event): ...\n",
    "\uFEFFdef agent_main(event):\r\n    return {'é': 1}\r\n",
    "class Helper:\n    def agent_main(self): pass\n\ndef agent_main(event):\n    return Helper()\n",
  ];
  for (const code of sources) {
    const bytes = utf8ToBytes(code);
    assert.deepEqual(await checkAgentSource(code, LIMIT), {
      sha256: bytesToHex(sha256(bytes)),
      sizeBytes: bytes.length,
    });
  }
});

Deno.test("agent_main only in a comment or a string is refused with 400 naming code", async () => {
  for (
    const code of [
      "# def agent_main(event): pass\nx = 1\n",
      'SOURCE = "def agent_main(event): pass"\n',
      '"""\ndef agent_main(event):\n    pass\n"""\n',
      "def agent_main_v2(event): pass\nagent_main = agent_main_v2\n",
      "",
    ]
  ) {
    const error = await refusal(code);
    assert.equal(error.code, "invalid_request");
    assert.match(error.message, /Must define agent_main with a top-level def or async def/);
    assert.deepEqual((error.details?.["fields"] as { field: string }[]).map((f) => f.field), ["code"]);
  }
});

Deno.test("agent_main in a nested scope or a block is refused, naming the line of the nested one", async () => {
  const cases: [string, number][] = [
    ["def outer():\n    def agent_main(event):\n        pass\n", 2],
    ["class Agent:\n    async def agent_main(self, event):\n        pass\n", 2],
    ["import sys\nif sys.version_info >= (3, 10):\n    def agent_main(event):\n        pass\n", 3],
    ["try:\n    import x\nexcept ImportError:\n    pass\nelse:\n    def agent_main(e): pass\n", 6],
  ];
  for (const [code, line] of cases) {
    const error = await refusal(code);
    assert.equal(error.code, "invalid_request");
    assert.match(error.message, new RegExp(`must be defined at the top level .* line ${line}, column 5`));
    assert.equal(error.details?.["line"], line);
  }
});

Deno.test("a file that does not parse as Python 3 is refused with 400 naming the line", async () => {
  const cases: [string, number, number][] = [
    ["def agent_main(event):\n    return 1\n\ndef helper(:\n    pass\n", 4, 12],
    ["def agent_main(event):\nreturn 1\n", 2, 1],
    ["import os\n\n\ndef agent_main(event):\n    return `event`\n", 5, 12],
    // An unclosed string is found where the file ends while it is still open.
    ['def agent_main(event):\n    s = """never closed\n', 3, 1],
  ];
  for (const [code, line, column] of cases) {
    const error = await refusal(code);
    assert.equal(error.code, "invalid_request");
    assert.match(error.message, new RegExp(`Syntax error at line ${line}, column ${column}`), error.message);
    assert.equal(error.details?.["line"], line);
    assert.equal(error.details?.["column"], column);
  }
  const nul = await refusal("def agent_main(event):\n    return '\0'\n");
  assert.match(nul.message, /line 2, column 13: it contains a NUL character/);
});

Deno.test("code with an unpaired surrogate has no UTF-8 form and is refused with 400", async () => {
  const error = await refusal("def agent_main(event):\n    return '\ud800'\n");
  assert.equal(error.code, "invalid_request");
  assert.match(error.message, /valid UTF-8: it has an unpaired surrogate at line 2, column 13/);
});

Deno.test("code over the byte limit is refused with 413, counting UTF-8 bytes, not characters", async () => {
  const code = "def agent_main(event):\n    return 'éé'\n"; // 41 bytes, 39 characters
  assert.equal(utf8ToBytes(code).length, 41);
  assert.equal((await checkAgentSource(code, { maxBytes: 41 })).sizeBytes, 41);
  const error = await refusal(code, 40);
  assert.equal(error.code, "payload_too_large");
  assert.deepEqual(error.details, { maxBytes: 40, sizeBytes: 41 });
});

Deno.test("positions count lines after \\n, \\r\\n or \\r and columns in characters", () => {
  assert.deepEqual(positionAt("ab\ncd", 4), { line: 2, column: 2 });
  assert.deepEqual(positionAt("a\r\nb\rc", 5), { line: 3, column: 1 });
  assert.deepEqual(positionAt("😀x", 2), { line: 1, column: 2 });
});

Deno.test("the shipped example agents pass the upload checks", async () => {
  for (const example of [EXAMPLE, LLM_EXAMPLE]) {
    const code = await Deno.readTextFile(example);
    assert.equal((await checkAgentSource(code, LIMIT)).sizeBytes, utf8ToBytes(code).length, example.pathname);
  }
});

/** About 10 s of work for the error-tolerant parser when parsed in one go. */
const SLOW_TO_PARSE = "x=" + "[".repeat(500_000) + "]".repeat(500_000) + "\ndef agent_main(event): pass\n";

Deno.test("parsing gives up once its work, measured on the given clock, passes the parse budget", async () => {
  // Each read of the work clock says one more millisecond passed (the reads that open a slice
  // count the time between slices, which is not parsing work).
  let workMs = 0;
  const error = await refusal(SLOW_TO_PARSE, LIMIT.maxBytes, () => ++workMs);
  assert.equal(error.code, "invalid_request");
  assert.match(
    error.message,
    new RegExp(`Too complex to check: parsing it took more than ${PARSE_BUDGET_MS} ms`),
  );
  assert.ok(workMs > PARSE_BUDGET_MS, `worked up to the budget (${workMs} ms)`);
  assert.ok(workMs < PARSE_BUDGET_MS * 1.5, `gave up at the budget, not at the end (${workMs} ms)`);
});

Deno.test("code made to be slow for the parser is refused past the parse budget, and never stalls other work", async () => {
  const code = SLOW_TO_PARSE;
  let ticks = 0;
  let longestGapMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
    ticks++;
  }, 10);
  try {
    const error = await refusal(code);
    assert.equal(error.code, "invalid_request");
    assert.match(
      error.message,
      new RegExp(`Too complex to check: parsing it took more than ${PARSE_BUDGET_MS} ms`),
    );
  } finally {
    clearInterval(timer);
  }
  assert.ok(ticks >= 10, `other work ran meanwhile (${ticks} timer ticks)`);
  // Parsing without turns of the event loop would hold it for the whole budget at least; a busy
  // machine may hold this process back for a while, but not for seconds.
  assert.ok(
    longestGapMs < PARSE_BUDGET_MS,
    `the event loop was never held long (longest gap ${longestGapMs.toFixed(0)} ms)`,
  );
});

pythonTest({
  name: "the shipped example agent returns a valid prediction for an event in the lease's shape",
  fn: async () => {
    const event = {
      id: "evt_1",
      question: "Will it rain in Paris on 2026-11-22?",
      outcomes: [{ outcomeId: "yes", name: "Yes" }, { outcomeId: "no", name: "No" }],
      currentOutcomePrices: { yes: 0.3, no: 0.6 },
    };
    const harness = "import json, runpy, sys\n" +
      "agent = runpy.run_path(sys.argv[1])\n" +
      "print(json.dumps(agent['agent_main'](json.loads(sys.stdin.read()))))\n";
    const child = new Deno.Command("python3", {
      args: ["-c", harness, EXAMPLE.pathname],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(utf8ToBytes(JSON.stringify(event)));
    await writer.close();
    const output = await child.output();
    assert.ok(output.success);
    const prediction = JSON.parse(new TextDecoder().decode(output.stdout));
    assert.equal(prediction.predictedOutcomeId, "no");
    assert.ok(Math.abs(prediction.confidence - 2 / 3) < 1e-9);
    assert.deepEqual(Object.keys(prediction.outcomeProbabilities).toSorted(), ["no", "yes"]);
    const sum = prediction.outcomeProbabilities.yes + prediction.outcomeProbabilities.no;
    assert.ok(Math.abs(sum - 1) < 1e-9);
  },
});
