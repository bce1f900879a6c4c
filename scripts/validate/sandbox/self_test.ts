/**
 * `deno task validate --self-test` (docs/agents.md, "The self-test"): the escape suite run on the
 * operator's own host through the sandbox the validator would use, each check printed with its
 * verdict, then the agent's host uid (never 0) and capabilities (none) as seen from outside.
 * Every run gets its LLM relay, as the validator's do, forwarding to a stand-in for the gateway's
 * route in process (`escape_relay.ts`): the relay checks need no gateway either.
 * Exit status 0 when every check passed or was ignored (with its reason), 1 otherwise.
 */
import { bytesToHex } from "@noble/hashes/utils.js";
import { signerFromSecretHex } from "../../../actors/validators/mod.ts";
import { type AgentOutcome, runAgent, RunnerFailure } from "../agent_run.ts";
import { startRelay } from "../relay/mod.ts";
import { AGENT_USER } from "./agent_user.ts";
import { ESCAPE_CHECKS, escapeAgent, type EscapeCheck } from "./escape_checks.ts";
import { observeIdentity } from "./escape_observer.ts";
import { gatewayStandIn } from "./escape_relay.ts";
import { type RunReport, verdictOf } from "./escape_verdict.ts";
import { type EscapeWorld, openEscapeWorld } from "./escape_world.ts";
import type { SandboxHost } from "./sandbox_host.ts";
import { sandboxStarter } from "./sandbox_starter.ts";
import type { RunStarter } from "../run_starter.ts";

export interface SelfTestIo {
  out(text: string): void;
  env: Record<string, string | undefined>;
  /** The validator's library directory (`forecasting_gateway`), as its runs get it. */
  libDir?: string;
}

/** Signs the relays' calls to the stand-in (and is the runs' miner): a key of no one's. */
const SELF_TEST_SIGNER = signerFromSecretHex(bytesToHex(crypto.getRandomValues(new Uint8Array(32))));
/** Wall-clock limits: short for the checks meant to overrun, generous for the others (a loaded host). */
const OVERRUN_MS = 3_000;
const GENEROUS_MS = 120_000;
/** Checks run side by side. */
const CONCURRENCY = 2;
/** The event the agents get (they only read its outcomes). */
const ESCAPE_EVENT = {
  id: "self-test",
  question: "Does the sandbox hold?",
  outcomes: [{ outcomeId: "yes", name: "Yes" }, { outcomeId: "no", name: "No" }],
  currentOutcomePrices: { yes: 0.5, no: 0.5 },
};

type Result = { status: "PASS" | "FAIL" | "IGNORED"; detail: string };

export async function runSelfTest(host: SandboxHost, io: SelfTestIo): Promise<number> {
  const world = await openEscapeWorld({ secret: io.env.FGW_SIGNING_SECRET ?? "" });
  try {
    for (const line of describeHost(host)) io.out(line);
    const starter = sandboxStarter(host, io.libDir === undefined ? {} : { libDir: io.libDir });
    const results = inPool(ESCAPE_CHECKS, CONCURRENCY, (check) => runCheck(check, world, starter));
    const counts = { PASS: 0, FAIL: 0, IGNORED: 0 };
    for (const [index, check] of ESCAPE_CHECKS.entries()) {
      const { status, detail } = await results[index]!;
      counts[status]++;
      io.out(`${status.padEnd(7)} ${check.title}: ${detail}`);
    }
    io.out(identityLine(world));
    io.out(
      `${ESCAPE_CHECKS.length} checks: ${counts.PASS} passed, ${counts.IGNORED} ignored, ${counts.FAIL} failed`,
    );
    return counts.FAIL === 0 ? 0 : 1;
  } finally {
    await world.close();
  }
}

function describeHost(host: SandboxHost): string[] {
  const user = host.user === null
    ? "the validator's own user (not root)"
    : `${AGENT_USER} (uid ${host.user.uid}, gid ${host.user.gid})`;
  const limits = host.cgroups === null
    ? "rlimits (RLIMIT_AS 1 GiB, RLIMIT_NPROC 64 in the run's user namespace), one pinned CPU"
    : `cgroup v${host.cgroups.version} (memory 1 GiB, 64 processes, one CPU${
      host.cgroups.cpu ? "" : " pinned"
    })`;
  return [
    `sandbox: bubblewrap ${host.bwrapVersion} (${host.bwrap}), interpreter ${host.python}`,
    `agents run as: ${user}`,
    `limits: ${limits}; writable places 64 MiB in all; seccomp deny-list by bubblewrap --seccomp`,
  ];
}

function identityLine(world: EscapeWorld): string {
  if (world.identity === null) return "agent identity: not observed";
  const { hostUid, fileUid } = world.identity;
  return `agent identity seen from the host: uid ${hostUid}, its scratch file owned by uid ${fileUid} ` +
    "(never 0); capabilities inside: see the first check (CapEff, CapPrm, CapBnd all 0 to pass)";
}

async function runCheck(check: EscapeCheck, world: EscapeWorld, starter: RunStarter): Promise<Result> {
  const skip = check.skip?.(world) ?? null;
  if (skip !== null) return { status: "IGNORED", detail: skip };
  const stopObserving = new AbortController();
  const observing = check.id === "identity" ? observeIdentity(world, stopObserving.signal) : null;
  try {
    const outcome = await relayedRun(check, world, starter);
    stopObserving.abort();
    await observing;
    const report: RunReport = outcome.ok
      ? { failure: null, reasoning: (outcome.result as { reasoning?: unknown } | null)?.reasoning }
      : { failure: outcome.error, reasoning: null };
    const verdict = verdictOf(check, report, await check.outside?.(world) ?? []);
    return { status: verdict.pass ? "PASS" : "FAIL", detail: verdict.detail };
  } catch (error) {
    stopObserving.abort();
    const why = error instanceof RunnerFailure ? "the sandbox could not start the run" : "the check broke";
    return { status: "FAIL", detail: `${why}: ${error instanceof Error ? error.message : error}` };
  }
}

/** The check's agent run once with its relay to the stand-in, closed when the run has ended. */
async function relayedRun(
  check: EscapeCheck,
  world: EscapeWorld,
  starter: RunStarter,
): Promise<AgentOutcome> {
  const relay = await startRelay({
    base: "http://gateway.self-test",
    signer: SELF_TEST_SIGNER,
    fetch: gatewayStandIn(world.relay, world.marker),
    nowMs: () => Date.now(),
    lease: { agentPredictionId: `self-test-${check.id}`, minerHotkey: SELF_TEST_SIGNER.hotkey },
    socketDir: await starter.relaySocketDir(),
  });
  try {
    const timeoutMs = check.overrun ? OVERRUN_MS : GENEROUS_MS;
    return await runAgent(escapeAgent(check, world), ESCAPE_EVENT, {
      starter,
      timeoutMs,
      relaySocket: relay.socketPath,
    });
  } finally {
    await relay.close();
  }
}

/** `work` over `items`, at most `limit` at a time; the promises in the items' order. */
function inPool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R>[] {
  let free = limit;
  const waiting: (() => void)[] = [];
  const slot = async () => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = () => (waiting.length > 0 ? waiting.shift()!() : free++);
  return items.map(async (item) => {
    await slot();
    try {
      return await work(item);
    } finally {
      release();
    }
  });
}
