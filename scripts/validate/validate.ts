/**
 * `deno task validate --base URL` runs a validator's loop against the gateway, one turn per
 * assignment (`validator_turn.ts`: lease, check the agent's digest, run its `agent_main` with
 * Python and its LLM relay, submit), every request signed with the hotkey whose secret is in
 * `FGW_SIGNING_SECRET` (never printed); with `--loop`, continuously (`validator_service.ts`). A
 * reference for validators' own code and a way to try the loop end to end: it runs the agent in a
 * plain subprocess, not the sandbox a production validator needs (docs/agents.md, "Limits a
 * validator enforces", and "A reference validator").
 */
import { setTimeout as delay } from "node:timers/promises";
import { checkPython } from "./agent_run.ts";
import { type CliOptions, cliOptions, HELP } from "./validate_options.ts";
import { serveValidator } from "./validator_service.ts";
import { type ValidateDeps, validateOnce } from "./validator_turn.ts";

export {
  GatewayAnswerError,
  type Submitted,
  type TurnResult,
  type ValidateDeps,
  validateOnce,
} from "./validator_turn.ts";

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
  try {
    const deps = { fetch: io.fetch, nowMs: io.nowMs };
    options = cliOptions(argv, { env: io.env, deps, ...(io.signal ? { signal: io.signal } : {}) });
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  if (options.mode === "help") {
    io.out(HELP);
    return 0;
  }
  try {
    await checkPython(options.deps.run.python);
  } catch (error) {
    io.err(error instanceof Error ? error.message : String(error));
    return 2;
  }
  if (options.mode === "once") return await turns(options.deps, options.max, io);
  const signal = io.signal ?? new AbortController().signal;
  await serveValidator(options.deps, options, { ...io, signal, sleep: io.sleep ?? sleep });
  return 0;
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
    fetch: (url, init) => fetch(url, init),
    nowMs: () => Date.now(),
    signal: stop.signal,
  });
  stop.release();
  Deno.exit(status);
}
