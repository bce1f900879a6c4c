/**
 * `deno task demo`: the whole loop on this machine, offline, in one command (docs/getting_started.md,
 * "Demo"; the run itself is `run_demo.ts`). SIGINT or SIGTERM stops it; a second one exits at once.
 */
import { HELP, parseDemoArgs } from "./demo_options.ts";
import { runDemo } from "./run_demo.ts";

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
  const onSignal = () => {
    if (stop.signal.aborted) Deno.exit(130);
    console.log("\nStopping the validator and the service… (again to exit at once, leaving the folder)");
    stop.abort();
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, onSignal);
  return await runDemo(options, { out: (line) => console.log(line), signal: stop.signal });
}

if (import.meta.main) Deno.exit(await main());
