/**
 * `deno task validate --loop` against a service in process: N runs at once, a wait that doubles
 * while nothing is available, one JSON line per run, and a stop (the AbortSignal SIGTERM aborts)
 * that leases no more and kills, or lets finish within the grace, the runs in progress.
 */
import assert from "node:assert/strict";
import { signerFromSecretHex } from "../../../actors/validators/mod.ts";
import { NO_SANDBOX } from "../../../scripts/validate/bare_starter.ts";
import { runValidate, type ValidateIo } from "../../../scripts/validate/validate.ts";
import { putEvents } from "../../support/events.ts";
import { pythonTest, SYSTEM_PYTHON } from "../../support/python.ts";
import {
  LEASE,
  type Loop,
  openLoop,
  poolEvents,
  SUBMIT,
  testSigner,
  uploadAgent,
} from "../../support/validator_loop.ts";

const SECRET = "7c".repeat(32);
const VALIDATOR = signerFromSecretHex(SECRET);

/** Python returning a valid prediction for the event, after `before` (statements, indented; may set `reason`). */
function agentThat(before: string): string {
  return `import os, time\ndef agent_main(event):\n    reason = None\n${before}\n` +
    `    ids = [o["outcomeId"] for o in event["outcomes"]]\n` +
    `    return {"predictedOutcomeId": ids[0], "confidence": 0.5, ` +
    `"outcomeProbabilities": {i: 1 / len(ids) for i in ids}, "reasoning": reason}\n`;
}

/**
 * A loop whose `miners` miners all run `code`, with `events` events in the pool (added after the
 * upload, so that only that version has assignments).
 */
async function loopRunning(code: string, counts: { miners: number; events: number }): Promise<Loop> {
  const miners = Array.from({ length: counts.miners }, (_, i) => testSigner(`service-miner-${i}`));
  const loop = await openLoop({ validators: [VALIDATOR], miners, events: 0 });
  loop.service.clock.advance(1_000);
  const nowMs = loop.service.clock.now();
  for (const [i, miner] of miners.entries()) {
    // A version id is the code's digest: each miner's code differs by a comment.
    await uploadAgent(loop.service.storage, miner.hotkey, `${code}# miner ${i}\n`, nowMs);
  }
  loop.events.push(...poolEvents(counts.events, nowMs));
  await putEvents(loop.service.storage, loop.events, nowMs);
  await loop.sync();
  return loop;
}

interface Traffic {
  leaseRequests: number;
  leased: number;
  submitted: number;
  /** Leased and not yet submitted, at each lease request. */
  openAtLease: number[];
}

interface ServiceIo extends ValidateIo {
  lines: Record<string, unknown>[];
  errors: string[];
  sleeps: number[];
  traffic: Traffic;
  stop: AbortController;
}

/** The CLI's io against `loop`'s service; `onSleep` and `onLeased` may stop it. */
function serviceIo(
  loop: Loop,
  hooks: { onSleep?(io: ServiceIo): void | Promise<void>; onLeased?(io: ServiceIo): void } = {},
): ServiceIo {
  const traffic: Traffic = { leaseRequests: 0, leased: 0, submitted: 0, openAtLease: [] };
  const io: ServiceIo = {
    env: { FGW_SIGNING_SECRET: SECRET },
    lines: [],
    errors: [],
    sleeps: [],
    traffic,
    stop: new AbortController(),
    out: (text) => io.lines.push(JSON.parse(text)),
    err: (text) => io.errors.push(text),
    nowMs: () => loop.service.clock.now(),
    fetch: async (url, init) => {
      const { pathname } = new URL(url);
      if (pathname === LEASE) {
        traffic.openAtLease.push(traffic.leased - traffic.submitted);
        traffic.leaseRequests++;
      }
      const response = await loop.service.request(pathname, init);
      if (pathname === SUBMIT && response.ok) traffic.submitted++;
      if (pathname !== LEASE || !response.ok) return response;
      const body = await response.json();
      if (body.assignment !== null) traffic.leased++;
      if (body.assignment !== null) hooks.onLeased?.(io);
      return Response.json(body);
    },
    sleep: async (ms) => {
      io.sleeps.push(ms);
      await hooks.onSleep?.(io);
      // A test whose stop never comes fails on its assertions instead of waiting forever.
      if (io.sleeps.length >= 100) io.stop.abort();
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
  };
  io.signal = io.stop.signal;
  return io;
}

/** Bare runs: the agents meet in a host folder (sandboxed_run_test.ts runs --loop in the sandbox). */
const LOOP_ARGS = [
  "--base",
  "http://gateway.test",
  "--python",
  SYSTEM_PYTHON,
  "--unsafe-no-sandbox",
  "--loop",
];

pythonTest({
  name: "--loop --concurrency 3 runs every assignment, 3 at once and never more, one JSON line each",
  python: SYSTEM_PYTHON,
  fn: async () => {
    const meeting = await Deno.makeTempDir();
    // Each run waits (up to 20 s) until three runs have started: only runs in progress together meet.
    const dir = JSON.stringify(meeting);
    const code = agentThat(
      `    open(os.path.join(${dir}, str(os.getpid())), "w").close()\n` +
        `    for _ in range(400):\n        if len(os.listdir(${dir})) >= 3:\n            break\n` +
        `        time.sleep(0.05)\n    reason = {"met": len(os.listdir(${dir})) >= 3}`,
    );
    const loop = await loopRunning(code, { miners: 2, events: 3 });
    await using _service = loop.service;
    const io = serviceIo(loop, { onSleep: (io) => void (io.lines.length >= 6 && io.stop.abort()) });
    assert.equal(await runValidate([...LOOP_ARGS, "--concurrency", "3"], io), 0);
    assert.equal(io.lines.length, 6);
    assert.deepEqual(io.lines.map((line) => line.outcome), Array(6).fill("submitted"));
    assert.equal(new Set(io.lines.map((line) => line.lease)).size, 6);
    assert.ok(
      Math.max(...io.traffic.openAtLease) <= 2,
      `leased while 3 were open: ${io.traffic.openAtLease}`,
    );
    for (const line of io.lines) {
      assert.deepEqual(Object.keys(line).sort(), [
        "at",
        "event",
        "lease",
        "llmCalls",
        "llmCostMicro",
        "miner",
        "outcome",
        "runtimeMs",
        "sandbox",
      ]);
      assert.deepEqual([line.llmCalls, line.llmCostMicro, line.sandbox], [0, "0", NO_SANDBOX]);
      assert.equal(typeof line.runtimeMs, "number");
      const trace = await loop.service.storage.assignments.getTrace(String(line.lease)) as {
        trace: { reasoning: { met: boolean } };
      };
      assert.equal(trace.trace.reasoning.met, true, "three runs were in progress together");
    }
    await Deno.remove(meeting, { recursive: true });
  },
});

pythonTest({
  name:
    "--loop waits 1 s when none is available or leasing fails, doubling up to 30 s, from 1 s again after a lease",
  python: SYSTEM_PYTHON,
  fn: async () => {
    const loop = await loopRunning(agentThat("    pass"), { miners: 1, events: 0 });
    await using _service = loop.service;
    const io = serviceIo(loop, {
      onSleep: async (io) => {
        if (io.sleeps.length === 3) {
          await putEvents(
            loop.service.storage,
            poolEvents(1, loop.service.clock.now(), "late"),
            loop.service.clock.now(),
          );
          await loop.sync();
        }
        if (io.sleeps.length === 10) io.stop.abort();
      },
    });
    const honest = io.fetch;
    let failed = false;
    io.fetch = (url, init) => {
      if (failed) return honest(url, init);
      failed = true;
      return Promise.reject(new TypeError("connection refused"));
    };
    assert.equal(await runValidate(LOOP_ARGS, io), 0);
    assert.deepEqual(io.sleeps, [1000, 2000, 4000, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    assert.deepEqual(io.lines.map((line) => [line.outcome, line.event]), [["submitted", "late-00000"]]);
    assert.equal(JSON.parse(io.errors[0] ?? "{}").event, "lease_failed");
    assert.match(io.errors[0] ?? "", /connection refused/);
    assert.equal(io.traffic.leaseRequests, 10, "no lease after the stop");
  },
});

pythonTest({
  name: "stopping --loop kills the runs in progress and submits nothing for them, and leases no more",
  python: SYSTEM_PYTHON,
  fn: async () => {
    const loop = await loopRunning(agentThat("    time.sleep(60)"), { miners: 1, events: 3 });
    await using _service = loop.service;
    const io = serviceIo(loop, { onLeased: (io) => void (io.traffic.leased === 2 && io.stop.abort()) });
    assert.equal(await runValidate([...LOOP_ARGS, "--concurrency", "2"], io), 0);
    assert.deepEqual(io.lines.map((line) => line.outcome), ["killed", "killed"]);
    assert.equal(io.lines[0]?.runtimeMs, null);
    assert.equal(io.traffic.leaseRequests, 2);
    assert.equal(io.traffic.submitted, 0);
    for (const event of loop.events) {
      assert.deepEqual(
        await loop.service.storage.assignments.listEventPredictions(event.id, { limit: 10 }),
        [],
      );
    }
  },
});

pythonTest({
  name:
    "stopping --loop with --stop-grace-ms lets the runs in progress finish and be submitted, and leases no more",
  python: SYSTEM_PYTHON,
  fn: async () => {
    const loop = await loopRunning(agentThat("    time.sleep(1)"), { miners: 1, events: 3 });
    await using _service = loop.service;
    const io = serviceIo(loop, { onLeased: (io) => void (io.traffic.leased === 2 && io.stop.abort()) });
    const args = [...LOOP_ARGS, "--concurrency", "2", "--stop-grace-ms", "60000"];
    assert.equal(await runValidate(args, io), 0);
    assert.deepEqual(io.lines.map((line) => line.outcome), ["submitted", "submitted"]);
    assert.equal(io.traffic.leaseRequests, 2);
    assert.equal(io.traffic.submitted, 2);
  },
});

Deno.test("the CLI refuses --loop's options without it, --max with it, and numbers out of range (status 2)", async () => {
  const cases: [string[], RegExp][] = [
    [["--concurrency", "2"], /--concurrency and --stop-grace-ms go with --loop/],
    [["--stop-grace-ms", "10"], /go with --loop/],
    [["--loop", "--max", "3"], /--max does not go with --loop/],
    [["--loop", "--concurrency", "0"], /--concurrency must be an integer from 1 to 64/],
    [["--loop", "--stop-grace-ms", "-1"], /--stop-grace-ms/],
    [["--llm-max-calls", "2.5"], /--llm-max-calls must be an integer from 0 to 1000/],
  ];
  for (const [argv, message] of cases) {
    const errors: string[] = [];
    const io: ValidateIo = {
      env: { FGW_SIGNING_SECRET: SECRET },
      out: () => {},
      err: (text) => errors.push(text),
      fetch: () => Promise.reject(new Error("no request expected")),
      nowMs: () => Date.now(),
    };
    assert.equal(await runValidate(["--base", "http://gateway.test", ...argv], io), 2, argv.join(" "));
    assert.match(errors.join("\n"), message);
  }
});
