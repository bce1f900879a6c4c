/**
 * `deno task validate` against a service: it leases, runs the agent with python3 and submits with
 * signed requests; a failing, slow or malformed agent is submitted as a failed run; a tampered
 * agent is never run. These runs are bare (`--unsafe-no-sandbox`): they test the contract's
 * mechanics, and some look at what the agent did on the host; the sandbox has its own tests
 * (sandboxed_run_test.ts, escape_suite_test.ts).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { base64 } from "@scure/base";
import { signerFromSecretHex } from "../../../actors/validators/mod.ts";
import { bareStarter } from "../../../scripts/validate/bare_starter.ts";
import { UNSAFE_WARNING } from "../../../scripts/validate/starter_setup.ts";
import { type Loop, openLoop, testSigner, uploadAgent } from "../../support/validator_loop.ts";
import { pythonTest } from "../../support/python.ts";
import {
  runValidate,
  type ValidateDeps,
  type ValidateIo,
  validateOnce,
} from "../../../scripts/validate/validate.ts";

/** The validator's signing secret, as the CLI takes it (`FGW_SIGNING_SECRET`). */
const VALIDATOR_SECRET = "5a".repeat(32);
const VALIDATOR = signerFromSecretHex(VALIDATOR_SECRET);
const MINER = testSigner("validate-cli-miner");
const EXAMPLE_AGENT = await Deno.readTextFile(
  fileURLToPath(new URL("../../../docs/examples/agent_example.py", import.meta.url)),
);

/** A loop with one event whose miner's latest agent is `code`. */
async function loopWith(code: string, env: Record<string, string> = {}): Promise<Loop> {
  const loop = await openLoop({ validators: [VALIDATOR], miners: [MINER], events: 1, env });
  // A second later than the loop's own agent, so that this one is the miner's latest version.
  loop.service.clock.advance(1_000);
  await uploadAgent(loop.service.storage, MINER.hotkey, code, loop.service.clock.now());
  await loop.sync();
  return loop;
}

/** The script's dependencies, its requests going to `loop`'s service in process. */
function depsFor(loop: Loop, timeoutMs = 60_000): ValidateDeps {
  return {
    base: "http://gateway.test",
    signer: VALIDATOR,
    fetch: (url, init) => {
      const { pathname, search } = new URL(url);
      return loop.service.request(pathname + search, init);
    },
    nowMs: () => loop.service.clock.now(),
    run: { starter: bareStarter({ python: "python3" }), timeoutMs },
  };
}

/** The CLI's flags for bare runs with the test's interpreter. */
const BARE = ["--unsafe-no-sandbox", "--python", "python3"];

async function storedPrediction(loop: Loop, agentPredictionId: string) {
  const stored = await loop.service.storage.assignments.getPrediction(agentPredictionId);
  assert.ok(stored, "the prediction is stored");
  return stored;
}

pythonTest({
  name: "the shipped example agent is leased, run and submitted as a valid prediction",
  fn: async () => {
    const loop = await loopWith(EXAMPLE_AGENT);
    await using _service = loop.service;
    const result = await validateOnce(depsFor(loop));
    assert.equal(result.outcome, "submitted");
    if (result.outcome !== "submitted") return;
    assert.equal(result.failure, null);
    assert.equal(result.minerHotkey, MINER.hotkey);
    assert.equal(result.eventId, loop.events[0]!.id);
    const assignment = await loop.service.storage.assignments.get(result.agentPredictionId);
    assert.equal(assignment?.status, "submitted");
    const stored = await storedPrediction(loop, result.agentPredictionId);
    assert.equal(stored.validatorHotkey, VALIDATOR.hotkey);
    assert.equal(stored.validation.isValid, true, JSON.stringify(stored.validation));
    assert.equal(stored.reported.executionMetadata.predictionIsInvalid, false);
    const trace = await loop.service.storage.assignments.getTrace(result.agentPredictionId) as {
      trace: { reasoning: { method: string } };
    };
    assert.equal(trace.trace.reasoning.method, "market prices, normalised");
    // The only assignment is taken: the next turn finds none.
    assert.deepEqual(await validateOnce(depsFor(loop)), { outcome: "none_available" });
  },
});

/** A valid result for the event, as the example agent would give (Python source of an expression). */
const VALID_RESULT = `{"predictedOutcomeId": event["outcomes"][0]["outcomeId"], "confidence": 0.5, ` +
  `"outcomeProbabilities": {o["outcomeId"]: 0.5 for o in event["outcomes"]}}`;

const FAILING_AGENTS: [string, string, string][] = [
  ["raises", `def agent_main(event):\n    raise ValueError("no data for " + event["id"])\n`, "ValueError"],
  ["returns a list", `def agent_main(event):\n    return [1, 2]\n`, "InvalidResult"],
  ["returns NaN", `def agent_main(event):\n    return {"x": float("nan")}\n`, "ValueError"],
  [
    "returns a NUL in its reasoning",
    `def agent_main(event):\n    o = [x["outcomeId"] for x in event["outcomes"]]\n` +
    `    return {"predictedOutcomeId": o[0], "confidence": 1, "outcomeProbabilities": {o[0]: 1, o[1]: 0}, ` +
    `"reasoning": "a\\u0000b"}\n`,
    "InvalidResult",
  ],
  ["never returns", `import time\ndef agent_main(event):\n    time.sleep(60)\n`, "Timeout"],
  ["is async and raises", `async def agent_main(event):\n    raise RuntimeError("boom")\n`, "RuntimeError"],
  ["calls sys.exit(0)", `import sys\ndef agent_main(event):\n    sys.exit(0)\n`, "SystemExit"],
  ["ends its process with os._exit(0)", `import os\ndef agent_main(event):\n    os._exit(0)\n`, "NoResult"],
];

for (const [label, code, errorType] of FAILING_AGENTS) {
  pythonTest({
    name: `an agent that ${label} is submitted as a failed run (${errorType}), counted invalid`,
    fn: async () => {
      const loop = await loopWith(code);
      await using _service = loop.service;
      // A short time limit only for the agent that never returns: the others must finish within
      // theirs (the default, a minute), however busy the machine.
      const result = await validateOnce(errorType === "Timeout" ? depsFor(loop, 2_000) : depsFor(loop));
      assert.equal(result.outcome, "submitted");
      if (result.outcome !== "submitted") return;
      assert.equal(result.failure?.type, errorType, JSON.stringify(result.failure));
      const stored = await storedPrediction(loop, result.agentPredictionId);
      assert.equal(stored.validation.isValid, false);
      assert.ok(
        stored.validation.reasons.includes("agent_reported_invalid"),
        JSON.stringify(stored.validation),
      );
      assert.equal(stored.reported.executionMetadata.predictionIsInvalid, true);
    },
  });
}

pythonTest({
  name: "an agent that prints while it runs still has its result taken (its output goes to stderr)",
  fn: async () => {
    const code = `def agent_main(event):\n    print("debug: starting")\n    return ${VALID_RESULT}\n`;
    const loop = await loopWith(code);
    await using _service = loop.service;
    const result = await validateOnce(depsFor(loop));
    assert.ok(result.outcome === "submitted" && result.failure === null, JSON.stringify(result));
    assert.equal((await storedPrediction(loop, result.agentPredictionId)).validation.isValid, true);
  },
});

pythonTest({
  name: "the error of an agent that logs a lot before it raises is its own, not a log line",
  fn: async () => {
    const code =
      `import sys\ndef agent_main(event):\n    for i in range(2000):\n        print("log", i, file=sys.stderr)\n` +
      `    raise RuntimeError("real cause")\n`;
    const loop = await loopWith(code);
    await using _service = loop.service;
    const result = await validateOnce(depsFor(loop));
    assert.equal(result.outcome, "submitted");
    assert.deepEqual(result.outcome === "submitted" && result.failure, {
      type: "RuntimeError",
      message: "real cause",
    });
  },
});

pythonTest({
  name: "what an agent starts does not outlive its run, nor hold the validator past it",
  fn: async () => {
    const scratch = await Deno.makeTempDir();
    const pidFile = `${scratch}/child.pid`;
    const code =
      `import subprocess\ndef agent_main(event):\n    child = subprocess.Popen(["sleep", "30"])\n` +
      `    open(${JSON.stringify(pidFile)}, "w").write(str(child.pid))\n    return ${VALID_RESULT}\n`;
    const loop = await loopWith(code);
    await using _service = loop.service;
    const startedMs = Date.now();
    const result = await validateOnce(depsFor(loop));
    assert.ok(Date.now() - startedMs < 10_000, "the turn did not wait for the agent's child");
    assert.ok(result.outcome === "submitted" && result.failure === null, JSON.stringify(result));
    const pid = Number(await Deno.readTextFile(pidFile));
    assert.ok(await gone(pid), `the agent's child ${pid} was killed with the run`);
    await Deno.remove(scratch, { recursive: true });
  },
});

/** True once process `pid` no longer runs (gone, or a zombie waiting to be reaped), within 5 s. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => null);
    if (stat === null || / Z /.test(stat)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

pythonTest({
  name: "a run never outlives its lease: the time limit is cut to what is left of it",
  fn: async () => {
    const code = `import time\ndef agent_main(event):\n    time.sleep(60)\n`;
    // Long enough for the interpreter to start on a loaded machine.
    const loop = await loopWith(code, { FGW_LEASE_MS: "5000" });
    await using _service = loop.service;
    const result = await validateOnce(depsFor(loop, 60_000));
    assert.ok(result.outcome === "submitted", JSON.stringify(result));
    assert.equal(result.failure?.type, "Timeout");
    const limitMs = Number(/exceeded (\d+) ms/.exec(result.failure?.message ?? "")?.[1]);
    assert.ok(limitMs <= 5_000, `killed at the lease, not at --timeout-ms: ${result.failure?.message}`);
  },
});

pythonTest({
  name: "an agent whose code does not match the lease's digest is never run, and nothing is submitted",
  fn: async () => {
    const loop = await loopWith(EXAMPLE_AGENT);
    await using _service = loop.service;
    const scratch = await Deno.makeTempDir();
    const marker = `${scratch}/ran`;
    const honest = depsFor(loop);
    const tampered: ValidateDeps = {
      ...honest,
      fetch: async (url, init) => {
        const response = await honest.fetch(url, init);
        if (init.method !== "GET") return response;
        const lease = await response.json();
        const code = `open(${
          JSON.stringify(marker)
        }, "w").write("ran")\ndef agent_main(event):\n    return {}\n`;
        lease.assignment.agent.code = base64.encode(new TextEncoder().encode(code));
        return Response.json(lease);
      },
    };
    await assert.rejects(validateOnce(tampered), /SHA-256/);
    assert.equal(
      await Deno.stat(marker).then(() => true, () => false),
      false,
      "the tampered code did not run",
    );
    await Deno.remove(scratch, { recursive: true });
    const leased = await loop.service.storage.assignments.listEventPredictions(loop.events[0]!.id, {
      limit: 10,
    });
    assert.deepEqual(leased, []);
  },
});

function cliIo(loop: Loop, env: Record<string, string>): ValidateIo & { lines: string[]; errors: string[] } {
  const deps = depsFor(loop);
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    env,
    out: (text) => lines.push(text),
    err: (text) => errors.push(text),
    fetch: deps.fetch,
    nowMs: deps.nowMs,
    lines,
    errors,
  };
}

pythonTest({
  name: "the CLI runs up to --max turns, stops when none is available, and says what each did",
  fn: async () => {
    const loop = await loopWith(EXAMPLE_AGENT);
    await using _service = loop.service;
    const io = cliIo(loop, { FGW_SIGNING_SECRET: VALIDATOR_SECRET });
    assert.equal(await runValidate(["--base", "http://gateway.test", "--max", "5", ...BARE], io), 0);
    assert.deepEqual(io.lines.map((line) => JSON.parse(line).outcome), ["submitted", "none_available"]);
    assert.deepEqual(io.errors, [UNSAFE_WARNING], "one warning for its one run");
  },
});

Deno.test("the CLI refuses a missing secret, a bad --base or --max, with status 2 and the usage", async () => {
  const loop = await openLoop({ validators: [VALIDATOR], miners: [MINER], events: 1 });
  await using _service = loop.service;
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["--base", "http://gateway.test"], {}, /FGW_SIGNING_SECRET is not set/],
    [["--base", "not a url"], { FGW_SIGNING_SECRET: VALIDATOR_SECRET }, /--base must be an http/],
    [["--base", "http://x", "--max", "0"], { FGW_SIGNING_SECRET: VALIDATOR_SECRET }, /--max/],
    [["--base", "http://x", "--bogus"], { FGW_SIGNING_SECRET: VALIDATOR_SECRET }, /bogus/],
    [["--base", "localhost:8080"], { FGW_SIGNING_SECRET: VALIDATOR_SECRET }, /http:\/\/ or https:\/\//],
    [
      ["--base", "http://x", "--timeout-ms", "3000000000"],
      { FGW_SIGNING_SECRET: VALIDATOR_SECRET },
      /--timeout-ms/,
    ],
  ];
  for (const [argv, env, message] of cases) {
    const io = cliIo(loop, env);
    assert.equal(await runValidate(argv, io), 2, argv.join(" "));
    assert.match(io.errors.join("\n"), message);
    assert.match(io.errors.join("\n"), /Usage: deno task validate/);
  }
});

// The CLI checks its interpreter before it sends anything.
pythonTest({
  name:
    "a refused request (a validator not in the metagraph) ends the CLI with status 1 and the gateway's answer",
  fn: async () => {
    const loop = await openLoop({ validators: [VALIDATOR], miners: [MINER], events: 1 });
    await using _service = loop.service;
    const io = cliIo(loop, { FGW_SIGNING_SECRET: "a5".repeat(32) });
    assert.equal(await runValidate(["--base", "http://gateway.test", ...BARE], io), 1);
    assert.match(io.errors.join("\n"), /403.*hotkey_not_in_metagraph/);
  },
});

pythonTest({
  name: "an interpreter that cannot run the agent stops the CLI before it leases anything (status 2)",
  fn: async () => {
    const loop = await loopWith(EXAMPLE_AGENT);
    await using _service = loop.service;
    for (const python of ["/nonexistent/python3", "false"]) {
      const io = cliIo(loop, { FGW_SIGNING_SECRET: VALIDATOR_SECRET });
      const argv = ["--base", "http://gateway.test", "--unsafe-no-sandbox", "--python", python];
      assert.equal(await runValidate(argv, io), 2, python);
      assert.match(io.errors.join("\n"), new RegExp(python.replaceAll("/", "\\/")));
      assert.deepEqual(io.lines, []);
    }
    // The assignment was never leased: a working interpreter gets it.
    const result = await validateOnce(depsFor(loop));
    assert.ok(result.outcome === "submitted" && result.failure === null, JSON.stringify(result));
  },
});

pythonTest({
  name: "a gateway that cannot be reached ends the CLI with status 1, naming the request",
  fn: async () => {
    const lines: string[] = [];
    const errors: string[] = [];
    const io: ValidateIo = {
      env: { FGW_SIGNING_SECRET: VALIDATOR_SECRET },
      out: (text) => lines.push(text),
      err: (text) => errors.push(text),
      fetch: (url, init) => fetch(url, init),
      nowMs: () => Date.now(),
    };
    assert.equal(await runValidate(["--base", "http://127.0.0.1:9", ...BARE], io), 1);
    assert.match(errors.join("\n"), /GET http:\/\/127\.0\.0\.1:9\/v1\/validators\/agent-and-event failed/);
    assert.deepEqual(lines, []);
  },
});

pythonTest({
  name: "stopping the CLI mid-run kills the agent and submits nothing for it (status 130)",
  fn: async () => {
    const loop = await loopWith(`import time\ndef agent_main(event):\n    time.sleep(60)\n`);
    await using _service = loop.service;
    const stop = new AbortController();
    const io = { ...cliIo(loop, { FGW_SIGNING_SECRET: VALIDATOR_SECRET }), signal: stop.signal };
    setTimeout(() => stop.abort(), 500);
    const startedMs = Date.now();
    assert.equal(await runValidate(["--base", "http://gateway.test", ...BARE], io), 130);
    assert.ok(Date.now() - startedMs < 10_000, "stopped at once, not at the time limit");
    assert.match(io.errors.join("\n"), /interrupted/);
    assert.deepEqual(
      await loop.service.storage.assignments.listEventPredictions(loop.events[0]!.id, { limit: 10 }),
      [],
    );
  },
});

pythonTest({
  name: "a submission that meets a network failure or a 503 is sent again, and lands once",
  fn: async () => {
    const loop = await loopWith(EXAMPLE_AGENT);
    await using _service = loop.service;
    const honest = depsFor(loop);
    const posts: string[] = [];
    const flaky: ValidateDeps = {
      ...honest,
      fetch: (url, init) => {
        if (init.method !== "POST") return honest.fetch(url, init);
        posts.push(url);
        if (posts.length === 1) return Promise.reject(new TypeError("connection reset"));
        if (posts.length === 2) {
          return Promise.resolve(new Response("{}", { status: 503, headers: { "retry-after": "1" } }));
        }
        return honest.fetch(url, init);
      },
    };
    const result = await validateOnce(flaky);
    assert.ok(result.outcome === "submitted" && result.failure === null, JSON.stringify(result));
    assert.equal(posts.length, 3);
    assert.equal((await loop.service.storage.assignments.get(result.agentPredictionId))?.status, "submitted");
  },
});

Deno.test("a base URL with a path keeps it: requests go under it", async () => {
  const seen: string[] = [];
  const deps: ValidateDeps = {
    base: "http://gateway.test/forecasting/",
    signer: VALIDATOR,
    fetch: (url) => {
      seen.push(url);
      return Promise.resolve(Response.json({ error: { code: "not_found" } }, { status: 404 }));
    },
    nowMs: () => Date.now(),
    run: { starter: bareStarter({ python: "python3" }), timeoutMs: 1_000 },
  };
  await assert.rejects(validateOnce(deps), /404/);
  assert.deepEqual(seen, ["http://gateway.test/forecasting/v1/validators/agent-and-event"]);
});

const UNSTORABLE_ERRORS: [string, string, string][] = [
  ["a NUL in its error", `def agent_main(event):\n    raise RuntimeError("a\\x00b")\n`, "a\uFFFDb"],
  [
    "a lone surrogate in its error",
    `def agent_main(event):\n    raise RuntimeError("x\\ud800y")\n`,
    "x\uFFFDy",
  ],
  [
    "an error whose 1,000th character is half of a pair",
    `def agent_main(event):\n    raise RuntimeError("a" * 999 + "\\U0001F600" + "b")\n`,
    "a".repeat(999) + "\u{1F600}",
  ],
];

for (const [label, code, message] of UNSTORABLE_ERRORS) {
  pythonTest({
    name: `an agent that raises with ${label} is still submitted as a failed run, its text made storable`,
    fn: async () => {
      const loop = await loopWith(code);
      await using _service = loop.service;
      const result = await validateOnce(depsFor(loop));
      assert.ok(result.outcome === "submitted", JSON.stringify(result));
      assert.deepEqual(result.failure, { type: "RuntimeError", message });
      const stored = await storedPrediction(loop, result.agentPredictionId);
      assert.ok(stored.validation.reasons.includes("agent_reported_invalid"));
    },
  });
}

pythonTest({
  name: "an agent that dies with a NUL on stderr, or writes over the runner's answer, is a failed run",
  fn: async () => {
    const agents = [
      `import os, sys\ndef agent_main(event):\n    sys.stderr.write("x\\x00y\\n")\n    sys.stderr.flush()\n    os._exit(3)\n`,
      `import os\ndef agent_main(event):\n    try:\n        os.write(3, b"null")\n    except OSError:\n        pass\n    os._exit(0)\n`,
    ];
    for (const code of agents) {
      const loop = await loopWith(code);
      await using _service = loop.service;
      const result = await validateOnce(depsFor(loop));
      assert.ok(result.outcome === "submitted", JSON.stringify(result));
      assert.equal(result.failure?.type, "NoResult");
      assert.ok(!result.failure?.message.includes("\u0000"));
    }
  },
});
