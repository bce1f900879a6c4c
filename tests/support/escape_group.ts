/**
 * Runs escape checks through the real validator against a real service: a loop (tests/support/
 * validator_loop.ts) served over TCP on 127.0.0.1, one miner per check whose latest agent is the
 * check's, and `deno task validate` started as its own process with the signing secret in its
 * environment; then each check's report read back from what the service stored. The front of the
 * served loop notes each LLM call the validator's relays send to the validator completions route
 * (for the relay checks, `escape_relay.ts`) and passes the gateway's routes to a fake of them when
 * given one, else to the service itself (whose miners' organisations then need credits).
 */
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { Signer } from "../../actors/validators/mod.ts";
import { escapeAgent, type EscapeCheck } from "../../scripts/validate/sandbox/escape_checks.ts";
import type { RunReport } from "../../scripts/validate/sandbox/escape_verdict.ts";
import type { EscapeWorld } from "../../scripts/validate/sandbox/escape_world.ts";
import { noteRelayCall } from "../../scripts/validate/sandbox/escape_relay.ts";
import { VALIDATOR_COMPLETIONS_PATH } from "../../scripts/validate/relay/mod.ts";
import { addCredits } from "./access.ts";
import { type Loop, openLoop, testSigner, uploadAgent } from "./validator_loop.ts";

const VALIDATE = fileURLToPath(new URL("../../scripts/validate/validate.ts", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));
/** Credits of the miners' organisation when the calls go to the service: 100 credits. */
const MINER_CREDIT = "100000000";

/** A loop served over TCP; its clock follows the real time (the validator signs with it). */
export interface ServedLoop {
  loop: Loop;
  miners: Signer[];
  port: number;
  /** Where the LLM calls reaching the validator completions route are noted, once it is open. */
  world: EscapeWorld | null;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** The base URL of a fake of the gateway's routes (`/v1/gateway/…`); default the service's own. */
  gateway?: string;
}

export async function serveLoop(
  validator: Signer,
  minerCount: number,
  label: string,
  options: ServeOptions = {},
): Promise<ServedLoop> {
  const miners = Array.from({ length: minerCount }, (_, index) => testSigner(`${label}-${index}`));
  const loop = await openLoop({ validators: [validator], miners, events: 1 });
  // The miners' organisation pays for the calls the relay checks make through the service.
  if (options.gateway === undefined) await addCredits(loop.service.request, loop.orgId, MINER_CREDIT, label);
  const ticker = setInterval(() => loop.service.clock.set(Date.now()), 100);
  const front = (request: Request) => {
    const { pathname } = new URL(request.url);
    if (!pathname.startsWith("/v1/gateway/")) return loop.service.app.fetch(request);
    return toGateway(request, { loop, world: served.world, ...options });
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, front);
  const served: ServedLoop = {
    loop,
    miners,
    port: server.addr.port,
    world: null,
    close: async () => {
      clearInterval(ticker);
      await server.shutdown();
      await loop.service.close();
    },
  };
  return served;
}

/** A request to the gateway's routes, passed on to the fake or the service; a relayed LLM call noted. */
async function toGateway(
  request: Request,
  to: { loop: Loop; world: EscapeWorld | null; gateway?: string },
): Promise<Response> {
  const { pathname, search } = new URL(request.url);
  const body = request.method === "GET" ? null : new Uint8Array(await request.arrayBuffer());
  const url = to.gateway === undefined ? request.url : `${to.gateway}${pathname}${search}`;
  const passed = new Request(url, { method: request.method, headers: request.headers, body });
  const { world } = to;
  const done = world !== null && pathname === VALIDATOR_COMPLETIONS_PATH && body !== null
    ? noteRelayCall(world.relay, world.marker, {
      minerHotkey: request.headers.get("x-miner-hotkey"),
      body: new TextDecoder().decode(body),
    })
    : () => {};
  try {
    return to.gateway === undefined ? await to.loop.service.app.fetch(passed) : await fetch(passed);
  } finally {
    done();
  }
}

const TurnLine = z.object({
  outcome: z.string(),
  minerHotkey: z.string().optional(),
  agentPredictionId: z.string().optional(),
  failure: z.object({ type: z.string(), message: z.string() }).nullable().optional(),
});

export interface GroupResult {
  /** The validator process's exit status and what it wrote on stderr. */
  status: number;
  stderr: string;
  /** The last turn's outcome ("none_available" once every assignment was run). */
  lastOutcome: string | null;
  reports: Map<string, RunReport>;
}

export interface GroupOptions {
  secret: string;
  timeoutMs: number;
  /** Extra arguments of the validator (e.g. --unsafe-no-sandbox). */
  args?: string[];
}

/** Uploads each check's agent for its own miner, runs the validator until none is left, reads the reports. */
export async function runGroup(
  served: ServedLoop,
  checks: readonly EscapeCheck[],
  world: EscapeWorld,
  options: GroupOptions,
): Promise<GroupResult> {
  const { loop } = served;
  const byMiner = new Map<string, EscapeCheck>();
  for (const [index, check] of checks.entries()) {
    const hotkey = served.miners[index]!.hotkey;
    byMiner.set(hotkey, check);
    await uploadAgent(
      loop.service.storage,
      hotkey,
      escapeAgent(check, world),
      loop.service.clock.now() + 1_000,
    );
  }
  await loop.sync();
  const output = await validatorProcess(served.port, checks.length + 1, options);
  const lines = output.stdout.split("\n").filter((line) => line.startsWith("{")).map((line) =>
    TurnLine.parse(JSON.parse(line))
  );
  const reports = new Map<string, RunReport>();
  for (const line of lines) {
    const check = byMiner.get(line.minerHotkey ?? "");
    if (check === undefined || line.agentPredictionId === undefined) continue;
    const stored = await loop.service.storage.assignments.getTrace(line.agentPredictionId) as {
      trace?: { reasoning?: unknown };
    };
    reports.set(check.id, { failure: line.failure ?? null, reasoning: stored?.trace?.reasoning ?? null });
  }
  return {
    status: output.status,
    stderr: output.stderr,
    lastOutcome: lines.at(-1)?.outcome ?? null,
    reports,
  };
}

interface ProcessOutput {
  status: number;
  stdout: string;
  stderr: string;
}

/** `deno task validate` as its own process, the secret in its environment as an operator would set it. */
async function validatorProcess(port: number, max: number, options: GroupOptions): Promise<ProcessOutput> {
  const args = [
    ...["run", "--allow-all", VALIDATE, "--base", `http://127.0.0.1:${port}`],
    ...["--max", String(max), "--timeout-ms", String(options.timeoutMs), ...options.args ?? []],
  ];
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: REPO,
    env: { FGW_SIGNING_SECRET: options.secret, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { status: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}
