/**
 * `deno task validate --base URL` runs a validator's loop against the gateway, one turn per
 * assignment (`validator_turn.ts`: lease, check the agent's digest, run its `agent_main` in the
 * sandbox, submit), every request signed with the hotkey whose secret is in `FGW_SIGNING_SECRET`
 * (never printed). At start it checks that the host can sandbox runs (docs/agents.md, "What a
 * validator host needs"); `--self-test` runs the sandbox's escape checks on this host instead.
 */
import { type Signer, signerFromSecretHex } from "../../actors/validators/mod.ts";
import { runSelfTest } from "./sandbox/self_test.ts";
import { setUpStarter, type Starters } from "./starter_setup.ts";
import { type CliOptions, HELP, parseCli } from "./validate_options.ts";
import { type ValidateDeps, validateOnce } from "./validator_turn.ts";

export { GatewayAnswerError, type TurnResult, type ValidateDeps, validateOnce } from "./validator_turn.ts";

/** Where the CLI reads its settings and writes its output (tests pass their own). */
export interface ValidateIo {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
  fetch(url: string, init: RequestInit): Promise<Response>;
  nowMs(): number;
  /** Aborted when the process is asked to stop (SIGINT, SIGTERM). */
  signal?: AbortSignal;
}

/** Runs one invocation; returns the exit status (see `HELP`). */
export async function runValidate(argv: string[], io: ValidateIo): Promise<number> {
  let options: CliOptions;
  let signer: Signer | null;
  try {
    options = parseCli(argv);
    signer = options.help || options.selfTest ? null : signerOf(io.env);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  if (options.help) {
    io.out(HELP);
    return 0;
  }
  const path = io.env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
  const starters = await setUpStarter({ python: options.python, unsafe: options.unsafe, path, err: io.err });
  if (typeof starters === "string") {
    io.err(starters);
    return 2;
  }
  try {
    if (signer === null) return await selfTest(starters, io);
    return await turns(options, deps(options, signer, starters, io), io);
  } finally {
    await starters.release();
  }
}

async function selfTest(starters: Starters, io: ValidateIo): Promise<number> {
  if (starters.host === null) {
    io.err("--self-test checks the sandbox: leave out --unsafe-no-sandbox");
    return 2;
  }
  return await runSelfTest(starters.host, { out: io.out, env: io.env });
}

function signerOf(env: ValidateIo["env"]): Signer {
  const secret = env.FGW_SIGNING_SECRET;
  if (!secret) throw new TypeError("FGW_SIGNING_SECRET is not set");
  return signerFromSecretHex(secret);
}

function deps(options: CliOptions, signer: Signer, starters: Starters, io: ValidateIo): ValidateDeps {
  const signal = io.signal ? { signal: io.signal } : {};
  const run = { starter: starters.starter, timeoutMs: options.timeoutMs, ...signal };
  return { base: options.base, signer, fetch: io.fetch, nowMs: io.nowMs, run };
}

async function turns(options: CliOptions, deps: ValidateDeps, io: ValidateIo): Promise<number> {
  for (let turn = 0; turn < options.max; turn++) {
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
    fetch: (url, init) => fetch(url, { ...init, signal: stop.signal }),
    nowMs: () => Date.now(),
    signal: stop.signal,
  });
  stop.release();
  Deno.exit(status);
}
