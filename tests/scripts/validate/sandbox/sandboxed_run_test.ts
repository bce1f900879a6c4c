/**
 * Runs in the sandbox through the validator: the example agent submitted with the sandbox named in
 * its metadata, the relay socket and the library directory the relay will use, a sandbox that
 * cannot start counted as the validator's failure, and the host check's answers.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runAgent, RunnerFailure } from "../../../../scripts/validate/agent_run.ts";
import {
  checkSandboxHost,
  makeRelaySocketDir,
  sandboxName,
  sandboxStarter,
} from "../../../../scripts/validate/sandbox/mod.ts";
import { runValidate, validateOnce } from "../../../../scripts/validate/validate.ts";
import { openLoop, testSigner, uploadAgent } from "../../../support/validator_loop.ts";
import { needsSandbox, sandboxHost } from "../../../support/sandbox_host.ts";
import { signerFromSecretHex } from "../../../../actors/validators/mod.ts";

const VALIDATOR_SECRET = "6b".repeat(32);
const VALIDATOR = signerFromSecretHex(VALIDATOR_SECRET);
const MINER = testSigner("sandboxed-run-miner");
const EXAMPLE_AGENT = await Deno.readTextFile(
  fileURLToPath(new URL("../../../../docs/examples/agent_example.py", import.meta.url)),
);
const EVENT = { id: "e", outcomes: [{ outcomeId: "yes" }, { outcomeId: "no" }] };
/** Generous: the machine may be loaded by other tests. */
const TIMEOUT_MS = 120_000;

async function loopWith(code: string) {
  const loop = await openLoop({ validators: [VALIDATOR], miners: [MINER], events: 1 });
  loop.service.clock.advance(1_000);
  await uploadAgent(loop.service.storage, MINER.hotkey, code, loop.service.clock.now());
  await loop.sync();
  return loop;
}

function inProcess(loop: Awaited<ReturnType<typeof loopWith>>) {
  return (url: string, init: RequestInit) => {
    const { pathname, search } = new URL(url);
    return loop.service.request(pathname + search, init);
  };
}

Deno.test({
  ...needsSandbox(
    "the example agent runs in the sandbox: submitted valid, its metadata naming bubblewrap and the runtime",
  ),
  fn: async () => {
    const host = await sandboxHost();
    const loop = await loopWith(EXAMPLE_AGENT);
    await using _service = loop.service;
    const run = { starter: sandboxStarter(host), timeoutMs: TIMEOUT_MS };
    const deps = {
      base: "http://gateway.test",
      signer: VALIDATOR,
      fetch: inProcess(loop),
      nowMs: loop.service.clock.now,
      run,
    };
    const result = await validateOnce(deps);
    assert.ok(result.outcome === "submitted" && result.failure === null, JSON.stringify(result));
    const stored = await loop.service.storage.assignments.getPrediction(result.agentPredictionId);
    assert.equal(stored?.validation.isValid, true);
    const metadata = stored?.reported.executionMetadata as { sandbox?: string; runtimeMs?: number };
    assert.equal(metadata.sandbox, `bubblewrap ${host.bwrapVersion}`);
    assert.equal(metadata.sandbox, sandboxName(host));
    assert.ok(typeof metadata.runtimeMs === "number" && metadata.runtimeMs > 0);
  },
});

Deno.test({
  ...needsSandbox("the CLI sandboxes runs by default and says so in each turn's line"),
  fn: async () => {
    const host = await sandboxHost();
    const loop = await loopWith(EXAMPLE_AGENT);
    await using _service = loop.service;
    const lines: string[] = [];
    const errors: string[] = [];
    const io = {
      env: { FGW_SIGNING_SECRET: VALIDATOR_SECRET, PATH: Deno.env.get("PATH") },
      out: (text: string) => lines.push(text),
      err: (text: string) => errors.push(text),
      fetch: inProcess(loop),
      nowMs: loop.service.clock.now,
    };
    assert.equal(
      await runValidate(["--base", "http://gateway.test", "--max", "2"], io),
      0,
      errors.join("\n"),
    );
    const [first] = lines.map((line) => JSON.parse(line));
    assert.equal(first.outcome, "submitted");
    assert.equal(first.failure, null);
    assert.equal(first.sandbox, sandboxName(host));
    assert.ok(!errors.some((line) => line.includes("WITHOUT the sandbox")));
  },
});

Deno.test({
  ...needsSandbox("a run's relay socket is reachable at /run/fgw/relay.sock inside, and named to the agent"),
  fn: async () => {
    const host = await sandboxHost();
    const dir = await makeRelaySocketDir(host);
    const path = `${dir}/relay.sock`;
    const listener = Deno.listen({ transport: "unix", path });
    const echoing = echoOnce(listener);
    const code = `import os, socket\ndef agent_main(event):\n    s = socket.socket(socket.AF_UNIX)\n` +
      `    s.connect("/run/fgw/relay.sock")\n    s.sendall(b"ping")\n` +
      `    return {"echo": s.recv(16).decode(), "named": os.environ.get("FGW_RELAY_SOCKET")}\n`;
    try {
      const outcome = await runAgent(code, EVENT, {
        starter: sandboxStarter(host),
        timeoutMs: TIMEOUT_MS,
        relaySocket: path,
      });
      assert.deepEqual(outcome.ok && outcome.result, { echo: "ping", named: "/run/fgw/relay.sock" });
    } finally {
      listener.close();
      await echoing;
      await Deno.remove(dir, { recursive: true });
    }
  },
});

async function echoOnce(listener: Deno.Listener): Promise<void> {
  try {
    const connection = await listener.accept();
    const buffer = new Uint8Array(16);
    const read = await connection.read(buffer);
    await connection.write(buffer.subarray(0, read ?? 0));
    connection.close();
  } catch {
    // Closed without a connection: the test's assertion says why.
  }
}

Deno.test({
  ...needsSandbox(
    "a library directory is importable from /run/fgw/lib, read-only, and only the runs that get it see it",
  ),
  fn: async () => {
    const host = await sandboxHost();
    const lib = await Deno.makeTempDir();
    await Deno.mkdir(`${lib}/forecasting_gateway`);
    await Deno.writeTextFile(`${lib}/forecasting_gateway/__init__.py`, "def hello():\n    return 'hi'\n");
    const code = `import forecasting_gateway\ndef agent_main(event):\n    try:\n` +
      `        open(forecasting_gateway.__file__, "a").write("#")\n        wrote = True\n` +
      `    except OSError:\n        wrote = False\n    return {"said": forecasting_gateway.hello(), "wrote": wrote}\n`;
    try {
      const withLib = sandboxStarter(host, { libDir: lib });
      const outcome = await runAgent(code, EVENT, { starter: withLib, timeoutMs: TIMEOUT_MS });
      assert.deepEqual(outcome.ok && outcome.result, { said: "hi", wrote: false });
      const without = await runAgent(code, EVENT, { starter: sandboxStarter(host), timeoutMs: TIMEOUT_MS });
      assert.equal(!without.ok && without.error.type, "ModuleNotFoundError");
    } finally {
      await Deno.remove(lib, { recursive: true });
    }
  },
});

Deno.test({
  ...needsSandbox("a sandbox that cannot start the run is the validator's failure: nothing is submitted"),
  fn: async () => {
    const host = await sandboxHost();
    const loop = await loopWith(EXAMPLE_AGENT);
    await using _service = loop.service;
    // Nothing of the system bound inside: bubblewrap starts, the interpreter cannot.
    const broken = sandboxStarter({ ...host, roots: [] });
    const deps = {
      base: "http://gateway.test",
      signer: VALIDATOR,
      fetch: inProcess(loop),
      nowMs: loop.service.clock.now,
      run: { starter: broken, timeoutMs: TIMEOUT_MS },
    };
    await assert.rejects(
      validateOnce(deps),
      (error) => error instanceof RunnerFailure && /did not reach the agent/.test(error.message),
    );
    const predictions = await loop.service.storage.assignments.listEventPredictions(loop.events[0]!.id, {
      limit: 10,
    });
    assert.deepEqual(predictions, [], "nothing submitted: the lease runs out");
  },
});

Deno.test("the host check names each missing piece with its fix, and the CLI stops before leasing (status 2)", async () => {
  const notSystem = await Deno.makeTempDir();
  await Deno.writeTextFile(`${notSystem}/python3`, '#!/bin/sh\nexec /usr/bin/python3 "$@"\n', {
    mode: 0o755,
  });
  try {
    const check = await checkSandboxHost({ python: "/nonexistent/python3", path: "" });
    assert.equal(check.ok, false);
    const problems = check.ok ? [] : check.problems;
    assert.ok(
      problems.some((p) =>
        /bubblewrap \(bwrap\) is not installed/.test(p.missing) && /apt-get install bubblewrap/.test(p.fix)
      ),
    );
    assert.ok(problems.some((p) => /\/nonexistent\/python3 cannot be run/.test(p.missing)));
    const errors: string[] = [];
    const io = {
      env: { FGW_SIGNING_SECRET: VALIDATOR_SECRET, PATH: Deno.env.get("PATH") },
      out: () => assert.fail("nothing is leased"),
      err: (text: string) => errors.push(text),
      fetch: () => Promise.reject(new Error("no request is made")),
      nowMs: () => Date.now(),
    };
    assert.equal(
      await runValidate(["--base", "http://gateway.test", "--python", `${notSystem}/python3`], io),
      2,
    );
    assert.match(
      errors.join("\n"),
      /missing: .*python3 is not a system interpreter[\s\S]*fix: .*--python \/usr\/bin\/python3/,
    );
  } finally {
    await Deno.remove(notSystem, { recursive: true });
  }
});
