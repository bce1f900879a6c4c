/** The command line of `deno task demo` (docs/getting_started.md, "Demo"): its help and its options. */
import { parseArgs } from "node:util";
import { z } from "zod";

/** The seed the demo uses unless told otherwise: every run with it gives the same board. */
export const DEFAULT_SEED = 4;

export const HELP = `Usage: deno task demo [--seed N] [--port N] [--concurrency N]

Runs the whole loop on this machine, offline: the service on a Deno KV store in a temporary
folder (sample markets, demo metagraph and prices, the echo LLM provider), four demo miners with
their agents, the reference validator, and markets resolved early on a seeded schedule. It prints
the URLs to open and a funded API key; Ctrl-C stops everything and removes the folder.
  --seed N          picks the markets resolved, their winners and the noisy agent's noise
                    (default ${DEFAULT_SEED}; the same seed gives the same board)
  --port N          the service's port (default 8080; when taken, a free one; 0 = a free one)
  --concurrency N   the validator's runs in progress at once (default 4, at most 16)`;

export interface DemoOptions {
  seed: number;
  port: number;
  concurrency: number;
}

const integer = (min: number, max: number) =>
  z.string().regex(/^\d+$/, "must be a whole number").transform(Number).pipe(
    z.number().int().min(min).max(max),
  );

const optionsSchema = z.object({
  seed: integer(0, 2 ** 31 - 1).default(DEFAULT_SEED),
  port: integer(0, 65_535).default(8080),
  concurrency: integer(1, 16).default(4),
});

/** The options of `argv`, "help", or a TypeError naming the bad option. */
export function parseDemoArgs(argv: string[]): DemoOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      seed: { type: "string" },
      port: { type: "string" },
      concurrency: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) return "help";
  const { help: _, ...given } = values;
  const parsed = optionsSchema.safeParse(given);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new TypeError(`--${issue.path.join(".")} ${issue.message}`);
}
