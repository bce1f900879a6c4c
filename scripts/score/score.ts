/**
 * `deno task score FILE [--weights]`: recomputes scores from a scorer input file (shaped like
 * `tests/scoring/golden/scoring-v1.json`'s `input`) and prints the result, shaped like its `expected`, as
 * JSON on stdout. With `--weights` the result also carries `weights`: the u16 weights per uid that the
 * bittensor SDK's `convert_weights_and_uids_for_emit` makes of the scores.
 *
 * `deno task score --from-service BASE [--weights]` builds that input from a running service
 * (scripts/score/score_from_service.ts), signing the scored-predictions feed with the validator key in
 * `FGW_SIGNING_SECRET` (as `deno task sign`), then prints the same result.
 *
 * Exit status: 0 ok, 1 a file or service that cannot be read or is not a valid scorer input, 2 a
 * usage or key error.
 */
import { parseArgs } from "node:util";
import { parseScorerInput, type ScorerInput, scoreV1, weightsForEmit } from "../../actors/scoring/mod.ts";
import { signerFromSecretHex } from "../../actors/validators/mod.ts";
import { readScorerInput } from "./score_from_service.ts";
import { callerPath } from "../cli/caller_path.ts";

/** Where the CLI reads files, settings and the service, and writes its output (tests pass their own). */
export interface ScoreIo {
  readTextFile(path: string): Promise<string>;
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  /** Epoch milliseconds (signature timestamps). */
  nowMs(): number;
  fetch?: typeof fetch;
}

const USAGE = "usage: deno task score FILE [--weights]\n" +
  "       deno task score --from-service BASE [--weights]\n" +
  "  FILE                 a scorer input (the `input` of tests/scoring/golden/scoring-v1.json)\n" +
  "  --from-service BASE  build the input from the service at BASE (e.g. http://127.0.0.1:8000):\n" +
  "                       leaderboard, signed scored-predictions feed, resolved events\n" +
  "  FGW_SIGNING_SECRET   with --from-service: the validator's hex seed (32 bytes) or secret key\n" +
  "                       (64 bytes) that signs the feed requests; never printed\n" +
  "  --weights            also print each uid's u16 weight (convert_weights_and_uids_for_emit)";

/** A missing or invalid key: exit status 2, like a usage error. */
class UsageError extends Error {}

type Args = { source: { file: string } | { base: string }; weights: boolean };

function parse(argv: string[]): Args | string {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        weights: { type: "boolean" },
        help: { type: "boolean" },
        "from-service": { type: "string" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (parsed.values.help === true) return "";
  const weights = parsed.values.weights === true;
  const base = parsed.values["from-service"];
  if (base !== undefined) {
    if (parsed.positionals.length !== 0) return "give FILE or --from-service BASE, not both";
    return { source: { base }, weights };
  }
  if (parsed.positionals.length !== 1) return "expected exactly one FILE";
  return { source: { file: parsed.positionals[0]! }, weights };
}

async function fromService(base: string, io: ScoreIo): Promise<ScorerInput> {
  const secret = io.env.FGW_SIGNING_SECRET;
  if (secret === undefined || secret === "") throw new UsageError("FGW_SIGNING_SECRET is not set");
  let signer;
  try {
    signer = signerFromSecretHex(secret);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { input, notes } = await readScorerInput({
    base,
    signer,
    nowMs: () => io.nowMs(),
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
  for (const note of notes) io.err(`note: ${note}`);
  return input;
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
    const source = args.source;
    const input = "base" in source
      ? await fromService(source.base, io)
      : parseScorerInput(await readJson(source.file, io));
    output = scoreV1(input);
  } catch (error) {
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof UsageError ? 2 : 1;
  }
  const printed = args.weights ? { ...output, weights: weightsForEmit(output) } : output;
  io.out(JSON.stringify(printed, null, 2));
  return 0;
}

if (import.meta.main) {
  const io: ScoreIo = {
    readTextFile: (path) => Deno.readTextFile(callerPath(path)),
    out: (text) => console.log(text),
    err: (text) => console.error(text),
    env: Deno.env.toObject(),
    nowMs: () => Date.now(),
  };
  Deno.exit(await runScore(Deno.args, io));
}
