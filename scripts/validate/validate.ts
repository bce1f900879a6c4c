/**
 * `deno task validate --base URL` runs a validator's loop against the gateway, one turn per
 * assignment (`validator_turn.ts`: lease, check the agent's digest, run its `agent_main` in the
 * sandbox with its LLM relay, submit), every request signed with the hotkey whose secret is in
 * `FGW_SIGNING_SECRET` (never printed); with `--loop`, continuously (`validator_service.ts`). At
 * start it checks that the host can sandbox runs (docs/agents.md, "What a validator host needs");
 * `--self-test` runs the sandbox's escape checks on this host instead.
 */
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type Signer, signerFromSecretHex } from "../../actors/validators/mod.ts";
import { runSelfTest } from "./sandbox/self_test.ts";
import { setUpStarter, type Starters } from "./starter_setup.ts";
import { type CliOptions, HELP, parseCli, type RunSettings } from "./validate_options.ts";
import { serveValidator } from "./validator_service.ts";
import { type ValidateDeps, validateOnce } from "./validator_turn.ts";

export {
  GatewayAnswerError,
  type Submitted,
  type TurnResult,
  type ValidateDeps,
  validateOnce,
} from "./validator_turn.ts";

/** The modules every agent may import (`forecasting_gateway`): `/run/fgw/lib` in the sandbox. */
export const AGENT_LIB_DIR = fileURLToPath(new URL("./python", import.meta.url));

/** Where the CLI reads its settings and writes its output (tests pass their own). */
export interface ValidateIo {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
  fetch(url: string, init: RequestInit): Promise<Response>;
  nowMs(): number;
  /** Aborted when the process is asked to stop (SIGINT, SIGTERM). */
  signal?: AbortSignal;
  /** How `--loop` waits when no assignment is available (default: a timer, cut short by the stop). */
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

/** Runs one invocation; returns the exit status (see `HELP`). */
export async function runValidate(argv: string[], io: ValidateIo): Promise<number> {
  let options: CliOptions;
  let signer: Signer | null;
  try {
    options = parseCli(argv);
    signer = options.mode === "once" || options.mode === "loop" ? signerOf(io.env) : null;
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  if (options.mode === "help") {
    io.out(HELP);
    return 0;
  }
  const path = io.env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
  const unsafe = options.mode !== "self-test" && options.run.unsafe;
  const python = options.mode === "self-test" ? options.python : options.run.python;
  const starters = await setUpStarter({ python, unsafe, path, libDir: AGENT_LIB_DIR, err: io.err });
  if (typeof starters === "string") {
    io.err(starters);
    return 2;
  }
  try {
    // The signer is null only for the self-test.
    if (options.mode === "self-test" || signer === null) return await selfTest(starters, io);
    const deps = depsOf(options.run, signer, starters, io);
    if (options.mode === "once") return await turns(deps, options.max, io);
    const signal = io.signal ?? new AbortController().signal;
    await serveValidator(deps, options, { ...io, signal, sleep: io.sleep ?? sleep });
    return 0;
  } finally {
    await starters.release();
  }
}

async function selfTest(starters: Starters, io: ValidateIo): Promise<number> {
  if (starters.host === null) {
    io.err("--self-test checks the sandbox: leave out --unsafe-no-sandbox");
    return 2;
  }
  return await runSelfTest(starters.host, { out: io.out, env: io.env, libDir: AGENT_LIB_DIR });
}

function signerOf(env: ValidateIo["env"]): Signer {
  const secret = env.FGW_SIGNING_SECRET;
  if (!secret) throw new TypeError("FGW_SIGNING_SECRET is not set");
  return signerFromSecretHex(secret);
}

function depsOf(settings: RunSettings, signer: Signer, starters: Starters, io: ValidateIo): ValidateDeps {
  const signal = io.signal ? { signal: io.signal } : {};
  return {
    base: settings.base,
    signer,
    fetch: io.fetch,
    nowMs: io.nowMs,
    run: { starter: starters.starter, timeoutMs: settings.timeoutMs, ...signal },
    relay: { maxCalls: settings.llmMaxCalls },
  };
}

async function turns(deps: ValidateDeps, max: number, io: ValidateIo): Promise<number> {
  for (let turn = 0; turn < max; turn++) {
    try {
      const result = await validateOnce(deps);
      io.out(JSON.stringify(result));
      if (result.outcome === "none_available") return 0;
    } catch (error) {
      if (io.signal?.aborted) {
        io.err("interrupted: the run in progress was killed and nothing was submitted for it");
        return 130;
      }
      io.err(error instanceof Error ? error.message : String(error));
      return 1;
    }
  }
  return 0;
}

/** Waits `ms`, or less when `signal` aborts. */
async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch(() => {});
}

/** An AbortSignal that SIGINT or SIGTERM aborts (the listeners are removed by `release`). */
function stopSignal(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort(new Error("interrupted"));
  const names = ["SIGINT", "SIGTERM"] as const;
  for (const name of names) Deno.addSignalListener(name, stop);
  return {
    signal: controller.signal,
    release: () => names.forEach((name) => Deno.removeSignalListener(name, stop)),
  };
}

if (import.meta.main) {
  const stop = stopSignal();
  const status = await runValidate(Deno.args, {
    env: Deno.env.toObject(),
    out: (text) => console.log(text),
    err: (text) => console.error(text),
    // Not aborted by the stop: each request carries its own signal (the lease the stop's, the
    // submission the run's, a relayed LLM call the relay's), so that --stop-grace-ms can let runs finish.
    fetch: (url, init) => fetch(url, init),
    nowMs: () => Date.now(),
    signal: stop.signal,
  });
  stop.release();
  Deno.exit(status);
}
