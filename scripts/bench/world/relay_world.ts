/**
 * The world of `deno task bench:relay`: a local fake of the gateway's validator completions route
 * in its own process (tests/support/fake_validator_gateway_server.ts: it checks each signature with
 * the service's verifier and answers the echo envelope), a run's relay forwarding to it, and three
 * ways to make one call:
 * the validator signing it to the route itself, an agent through the relay with `node:http`, and
 * an agent in Python (`forecasting_gateway`) through the relay.
 */
import http from "node:http";
import { fileURLToPath } from "node:url";
import { type Signer, signerFromSecretHex } from "../../../actors/validators/mod.ts";
import { type Relay, startRelay } from "../../validate/relay/mod.ts";
import { signedFetch, type SigningDeps } from "../../validate/signed_fetch.ts";

const MODULES = fileURLToPath(new URL("../../validate/python", import.meta.url));
const FAKE_SERVER = fileURLToPath(
  new URL("../../../tests/support/fake_validator_gateway_server.ts", import.meta.url),
);
const LEASE = "ap_bench_relay";
const CALL = {
  provider: "echo",
  model: "echo-1",
  messages: [{ role: "user", content: "Rain?" }],
  maxTokens: 16,
};
const AGENT_BODY = JSON.stringify(CALL);

export interface RelayWorld {
  /** The validator's own signed call to the route; its latency in ms. */
  direct(): Promise<number>;
  /** An agent's call through the relay with `node:http`; its latency in ms. */
  viaRelay(): Promise<number>;
  /** `count` calls of a Python agent through the relay, one after another; their latencies in ms. */
  viaPython(count: number): Promise<number[]>;
  close(): Promise<void>;
}

/** Starts the fake gateway and a relay with no call limit. */
export async function startRelayWorld(options: { python: string }): Promise<RelayWorld> {
  const fake = await startFake();
  const signer = signerFromSecretHex("42".repeat(32));
  const miner = signerFromSecretHex("24".repeat(32)).hotkey;
  const deps: SigningDeps = { base: fake.base, signer, fetch, nowMs: () => Date.now() };
  const relay = await startRelay({
    ...deps,
    lease: { agentPredictionId: LEASE, minerHotkey: miner },
    limits: { maxCalls: Number.MAX_SAFE_INTEGER },
  });
  return {
    direct: () => timed(() => directCall(deps, { signer, miner })),
    viaRelay: () => timed(() => relayCall(relay)),
    viaPython: (count) => pythonCalls(relay, { python: options.python, count }),
    close: () => closeWorld(fake, relay),
  };
}

async function timed(call: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

async function directCall(deps: SigningDeps, who: { signer: Signer; miner: string }): Promise<void> {
  const response = await signedFetch({ ...deps, signer: who.signer }, {
    method: "POST",
    path: "/v1/gateway/validator/completions",
    body: JSON.stringify({ ...CALL, agentPredictionId: LEASE }),
    minerHotkey: who.miner,
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`the fake gateway answered ${response.status}`);
}

function relayCall(relay: Relay): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers = { "content-type": "application/json" };
    const request = http.request(
      { socketPath: relay.socketPath, path: "/v1/gateway/completions", method: "POST", headers },
      (response) => {
        response.resume();
        response.on("end", () => response.statusCode === 200 ? resolve() : reject(new Error("refused")));
      },
    );
    request.on("error", reject);
    request.end(AGENT_BODY);
  });
}

async function pythonCalls(relay: Relay, at: { python: string; count: number }): Promise<number[]> {
  const code = `import json, sys, time\nsys.path.insert(0, ${JSON.stringify(MODULES)})\n` +
    `from forecasting_gateway import complete\nlatencies = []\nfor _ in range(${at.count}):\n` +
    `    started = time.perf_counter()\n    complete("echo", "echo-1", ${
      JSON.stringify(CALL.messages)
    }, 16)\n` +
    `    latencies.append((time.perf_counter() - started) * 1000)\nprint(json.dumps(latencies))`;
  const output = await new Deno.Command(at.python, {
    args: ["-I", "-B", "-c", code],
    clearEnv: true,
    env: { FGW_RELAY_SOCKET: relay.socketPath },
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`${at.python} failed`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

interface Fake {
  base: string;
  close(): Promise<void>;
}

async function startFake(): Promise<Fake> {
  const child = new Deno.Command(Deno.execPath(), { args: ["run", "-A", FAKE_SERVER], stdout: "piped" })
    .spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  const base = value?.trim() ?? "";
  if (!base.startsWith("http://")) throw new Error(`the fake gateway did not start: ${base}`);
  return {
    base,
    close: async () => {
      child.kill("SIGTERM");
      await child.status;
      await child.stdout.cancel().catch(() => {});
    },
  };
}

async function closeWorld(fake: Fake, relay: Relay): Promise<void> {
  await relay.close();
  await fake.close();
}
