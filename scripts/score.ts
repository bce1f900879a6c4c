/**
 * `deno task score FILE [--weights]`: recomputes scores from a scorer input file (shaped like
 * `golden/scoring-v1.json`'s `input`) and prints the result, shaped like its `expected`, as JSON on
 * stdout. With `--weights` the result also carries `weights`: the u16 weights per uid that the
 * bittensor SDK's `convert_weights_and_uids_for_emit` makes of the scores.
 *
 * Exit status: 0 ok, 1 a file that cannot be read or is not a valid scorer input, 2 a usage error.
 */
import { parseArgs } from "node:util";
import { parseScorerInput, scoreV1, weightsForEmit } from "../actors/scoring/mod.ts";

/** Where the CLI reads files and writes its output (tests pass their own). */
export interface ScoreIo {
  readTextFile(path: string): Promise<string>;
  out(text: string): void;
  err(text: string): void;
}

const USAGE = "usage: deno task score FILE [--weights]\n" +
  "  FILE       a scorer input (the `input` of golden/scoring-v1.json)\n" +
  "  --weights  also print each uid's u16 weight (convert_weights_and_uids_for_emit)";

function parse(argv: string[]): { file: string; weights: boolean } | string {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { weights: { type: "boolean" }, help: { type: "boolean" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (parsed.values.help === true) return "";
  if (parsed.positionals.length !== 1) return "expected exactly one FILE";
  return { file: parsed.positionals[0]!, weights: parsed.values.weights === true };
}

async function readJson(path: string, io: ScoreIo): Promise<unknown> {
  let text;
  try {
    text = await io.readTextFile(path);
  } catch (error) {
    throw new Error(`Cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Runs one invocation; returns the exit status. */
export async function runScore(argv: string[], io: ScoreIo): Promise<number> {
  const args = parse(argv);
  if (typeof args === "string") {
    io.err(args === "" ? USAGE : `error: ${args}\n\n${USAGE}`);
    return args === "" ? 0 : 2;
  }
  let output;
  try {
    output = scoreV1(parseScorerInput(await readJson(args.file, io)));
  } catch (error) {
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const printed = args.weights ? { ...output, weights: weightsForEmit(output) } : output;
  io.out(JSON.stringify(printed, null, 2));
  return 0;
}

if (import.meta.main) {
  const io: ScoreIo = {
    readTextFile: (path) => Deno.readTextFile(path),
    out: (text) => console.log(text),
    err: (text) => console.error(text),
  };
  Deno.exit(await runScore(Deno.args, io));
}
