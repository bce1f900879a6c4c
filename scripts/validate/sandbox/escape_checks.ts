/**
 * The escape suite (docs/agents.md, "The escape suite"): hostile agents, each trying one way out
 * of the sandbox, and how each run must end for the check to pass. An agent reports what it
 * managed (`harm`) in its prediction's reasoning (`escape_probes.py`); some checks also look on
 * the host afterwards. The self-test (`self_test.ts`) and the test suite run the same checks.
 */
import { fileURLToPath } from "node:url";
import { RELAY_LIMITS } from "../relay/mod.ts";
import { OTHER_LEASE, OTHER_MINER, relayHarm } from "./escape_relay.ts";
import { RUN_LIMITS } from "./run_limits.ts";
import { type EscapeWorld, hostIpcWithKey, madeOnHost, markedProcesses } from "./escape_world.ts";

/** What decides whether a check can run on this host. */
export interface HostFacts {
  postgresPort: number | null;
}

export interface EscapeCheck {
  /** Names the probe (`probe_<id with _>` in escape_probes.py). */
  id: string;
  title: string;
  /** Meant to run into the wall-clock limit: run with a short one. */
  overrun?: boolean;
  /** The ends that pass: the agent's result without harm, and the failed runs named. */
  expect: { result: boolean; failures: readonly string[] };
  /** Harm found on the host after the run. */
  outside?: (world: EscapeWorld) => Promise<string[]>;
  /** Why this host cannot run the check (then shown as ignored), or null. */
  skip?: (host: HostFacts) => string | null;
  /** Python appended to the agent after the probes. */
  tail?: string;
}

const RESULT = { result: true, failures: [] } as const;

export const ESCAPE_CHECKS: readonly EscapeCheck[] = [
  {
    id: "identity",
    title: "runs as a host uid other than 0, with no capabilities",
    expect: RESULT,
    outside: identity,
  },
  {
    id: "environ",
    title: "read /proc/<ppid>/environ, /proc/1/environ and every environment",
    expect: RESULT,
  },
  { id: "files", title: "read the repository, home, a secrets file, /etc/shadow", expect: RESULT },
  { id: "processes", title: "list /proc for other processes", expect: RESULT },
  { id: "signal", title: "signal the parent and every process", expect: RESULT },
  { id: "tcp-service", title: "TCP to the service on 127.0.0.1", expect: RESULT, outside: serviceUntouched },
  { id: "tcp-postgres", title: "TCP to PostgreSQL on 127.0.0.1:5432", expect: RESULT, skip: noPostgres },
  { id: "tcp-public", title: "TCP to public addresses; any interface but loopback", expect: RESULT },
  { id: "dns", title: "resolve a name", expect: RESULT },
  { id: "udp", title: "send UDP", expect: RESULT, outside: udpUnheard },
  { id: "raw-socket", title: "open a raw or packet socket", expect: RESULT },
  { id: "write-outside", title: "write outside scratch", expect: RESULT, outside: writtenOutside },
  { id: "fill-scratch", title: "fill scratch, /tmp and /dev/shm past their one 64 MiB cap", expect: RESULT },
  { id: "fork-bomb", title: "fork bomb", expect: RESULT, outside: leftProcesses },
  { id: "threads", title: "start threads past the process limit", expect: RESULT },
  { id: "memory", title: "allocate past 1 GiB", expect: { result: true, failures: ["MemoryLimit"] } },
  {
    id: "spin",
    title: "spin past the wall-clock limit",
    overrun: true,
    expect: { result: false, failures: ["Timeout"] },
  },
  {
    id: "setsid-child",
    title: "a child that calls setsid to outlive the run",
    expect: RESULT,
    outside: leftProcesses,
  },
  { id: "stdout-flood", title: "100 MB to stdout", expect: RESULT },
  { id: "symlink", title: "symlinks in scratch pointing outside", expect: RESULT, outside: secretIntact },
  { id: "tiocsti", title: "inject keystrokes into a terminal (TIOCSTI)", expect: RESULT },
  { id: "host-sockets", title: "connect to host Unix sockets", expect: RESULT, outside: socketUntouched },
  { id: "ipc", title: "System V and POSIX IPC reach the host", expect: RESULT, outside: ipcOnHost },
  { id: "user-namespace", title: "create namespaces (user, mount, network, PID)", expect: RESULT },
  { id: "mount", title: "mount", expect: RESULT },
  { id: "ptrace", title: "ptrace", expect: RESULT },
  { id: "keyctl", title: "use the kernel's key store (keyctl, add_key)", expect: RESULT },
  {
    id: "deep-result",
    title: "return a result nested 100,000 levels",
    expect: { result: false, failures: ["RecursionError"] },
  },
  {
    id: "deep-result-raw",
    title: "write a 100,000-level result on the result channel",
    expect: { result: false, failures: ["ResultTooDeep"] },
  },
  {
    id: "fake-failure-before",
    title: "fake a sandbox failure while loading (exit with bwrap's words)",
    expect: { result: false, failures: ["NoResult"] },
    tail: "\nprobe_fake_failure([], {})\n",
  },
  {
    id: "fake-failure-after",
    title: "fake a sandbox failure from agent_main",
    expect: { result: false, failures: ["NoResult"] },
  },
  relayCheck("relay-other-miner", "call the relay naming another miner (in the body, in x-miner-hotkey)"),
  relayCheck("relay-other-lease", "call the relay naming another lease (in the body, in the query)"),
  relayCheck("relay-limit", "call the relay beyond the run's call limit"),
  relayCheck("relay-burst", "call the relay 100 times at once"),
  // The call must reach the gateway: the refusal the agent gets is then the service's, passed on.
  relayCheck("relay-refused", "call the relay with a body the service refuses", { reached: true }),
];

const PROBE_FILES = [
  "escape_probes.py",
  "escape_probes_network.py",
  "escape_probes_kernel.py",
  "escape_probes_relay.py",
];
const PROBES = (await Promise.all(
  PROBE_FILES.map((file) => Deno.readTextFile(fileURLToPath(new URL(`./${file}`, import.meta.url)))),
)).join("\n\n");

/** How long the identity check's agent waits to be observed from outside. */
const OBSERVE_SECONDS = 60;

/** The agent of `check` aimed at `world`. */
export function escapeAgent(check: EscapeCheck, world: EscapeWorld): string {
  const params = {
    secret: world.secret,
    secretPaths: world.secretPaths,
    repoDir: world.repoDir,
    homeDir: world.homeDir,
    hostTmp: world.hostTmp,
    servicePort: world.servicePort,
    udpPort: world.udpPort,
    postgresPort: world.postgresPort ?? 5432,
    hostAddress: "127.0.0.1",
    hostSockets: world.hostSockets,
    ipcKey: world.ipcKey,
    marker: world.marker,
    writableBytes: RUN_LIMITS.writableBytes,
    processes: RUN_LIMITS.processes,
    observeSeconds: OBSERVE_SECONDS,
    otherMiner: OTHER_MINER,
    otherLease: OTHER_LEASE,
    relayMaxCalls: RELAY_LIMITS.maxCalls,
  };
  const probe = check.id.startsWith("fake-failure") ? "fake_failure" : check.id.replaceAll("-", "_");
  return `import json\nPARAMS = json.loads(${JSON.stringify(JSON.stringify(params))})\n${PROBES}\n` +
    `CHECK = ${JSON.stringify(probe)}\n${check.tail ?? ""}`;
}

/** A check of the run's LLM relay: the agent's report, and what reached the gateway's route. */
function relayCheck(id: string, title: string, options: { reached?: boolean } = {}): EscapeCheck {
  return {
    id,
    title,
    expect: RESULT,
    outside: (world) => Promise.resolve(relayHarm(world.relay, id, options)),
  };
}

function noPostgres(host: HostFacts): string | null {
  return host.postgresPort === null ? "nothing listens on 127.0.0.1:5432 on this host" : null;
}

function identity(world: EscapeWorld): Promise<string[]> {
  const seen = world.identity;
  if (seen === null) return Promise.resolve(["the agent was not observed from outside"]);
  const harm = [];
  if (seen.hostUid === 0) harm.push("the agent ran as host uid 0");
  if (seen.fileUid === 0) harm.push("the file it made in scratch belongs to host uid 0");
  return Promise.resolve(harm);
}

function writtenOutside(world: EscapeWorld): Promise<string[]> {
  const name = `fgw-escape-${world.marker}`;
  return madeOnHost(
    ["/", "/usr", "/usr/lib", "/etc", world.hostTmp, world.repoDir].map((dir) => `${dir}/${name}`),
  );
}

function leftProcesses(world: EscapeWorld): Promise<string[]> {
  return markedProcesses(world.marker);
}

async function secretIntact(world: EscapeWorld): Promise<string[]> {
  const [path] = world.secretPaths;
  const there = await Deno.stat(path!).then(() => true, () => false);
  return there ? [] : [`${path} is gone from the host`];
}

function serviceUntouched(world: EscapeWorld): Promise<string[]> {
  const count = world.tcpConnections;
  return Promise.resolve(count === 0 ? [] : [`the service's port accepted ${count} connections`]);
}

function udpUnheard(world: EscapeWorld): Promise<string[]> {
  const count = world.udpDatagrams;
  return Promise.resolve(count === 0 ? [] : [`the host's UDP port got ${count} datagrams`]);
}

function socketUntouched(world: EscapeWorld): Promise<string[]> {
  const count = world.socketConnections;
  return Promise.resolve(count === 0 ? [] : [`the host socket accepted ${count} connections`]);
}

async function ipcOnHost(world: EscapeWorld): Promise<string[]> {
  const named = `fgw-escape-${world.marker}`;
  return [
    ...await hostIpcWithKey(world.ipcKey),
    ...await madeOnHost([`/dev/shm/${named}`, `/dev/mqueue/${named}`]),
  ];
}
