/**
 * `deno task demo`: the whole loop on this machine, offline, in one command (docs/getting_started.md,
 * "Demo"; the run itself is `run_demo.ts`). SIGINT or SIGTERM stops it; a second one exits at once.
 */
import { HELP, parseDemoArgs } from "./demo_options.ts";
import { runDemo } from "./run_demo.ts";

/** A signal this soon after the first is the same stop delivered twice, not a second Ctrl-C. */
const REPEAT_MS = 1_000;

async function main(): Promise<number> {
  let options;
  try {
    options = parseDemoArgs(Deno.args);
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
  if (options === "help") {
    console.log(HELP);
    return 0;
  }
  const stop = new AbortController();
  let stoppingSince = 0;
  const onSignal = () => {
    if (stop.signal.aborted) {
      // The same stop delivered twice (to the process and to its group) is not a second Ctrl-C.
      if (performance.now() - stoppingSince > REPEAT_MS) Deno.exit(130);
      return;
    }
    stoppingSince = performance.now();
    console.log("\nStopping the validator and the service… (again to exit at once, leaving the folder)");
    stop.abort();
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, onSignal);
  return await runDemo(options, { out: (line) => console.log(line), signal: stop.signal });
}

if (import.meta.main) Deno.exit(await main());
