/**
 * `deno task sign [options] METHOD URL` prints the signature headers of one request (docs/signatures.md),
 * for validators and miners to script against the gateway (`curl -H …`) and to check their own
 * signing code. The key comes from `FGW_SIGNING_SECRET` (hex, `0x` optional: a 32-byte seed or a
 * 64-byte secret key); it is never printed. See docs/signatures.md.
 */
import { parseArgs } from "node:util";
import { type RequestToSign, signerFromSecretHex, signRequest } from "../../actors/validators/mod.ts";
import { callerPath } from "../cli/caller_path.ts";

/** Where the CLI reads its settings and writes its output (tests pass their own). */
export interface SignIo {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
  /** Epoch milliseconds for the timestamp header. */
  nowMs(): number;
  readFile(path: string): Promise<Uint8Array>;
}

const HELP = `Usage: deno task sign [options] METHOD URL

Prints the headers that sign the request, one "name: value" line each.
  FGW_SIGNING_SECRET   hex seed (32 bytes) or secret key (64 bytes) of the hotkey; never printed
  --miner              sign as a miner (x-miner-* headers, domain forecasting-gateway/miner/v1)
  --miner-hotkey SS58  validator acting for this miner (x-miner-hotkey, validator completions,
                       whose body names the lease: "agentPredictionId")
  --body TEXT          the exact body that will be sent
  --body-file PATH     the exact body that will be sent, from a file
  --nonce TEXT         use this nonce (default: 32 random hex digits)
  --timestamp MS       use this timestamp (default: now)
  --json               print the headers as one JSON object
  --curl               print them as curl -H arguments`;

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      miner: { type: "boolean" },
      "miner-hotkey": { type: "string" },
      body: { type: "string" },
      "body-file": { type: "string" },
      nonce: { type: "string" },
      timestamp: { type: "string" },
      json: { type: "boolean" },
      curl: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
}

type Parsed = ReturnType<typeof parse>;

async function requestOf(parsed: Parsed, io: SignIo): Promise<RequestToSign> {
  const [method, url] = parsed.positionals;
  if (method === undefined || url === undefined || parsed.positionals.length > 2) {
    throw new TypeError("Expected METHOD and URL");
  }
  const { body, "body-file": bodyFile, "miner-hotkey": minerHotkey } = parsed.values;
  if (body !== undefined && bodyFile !== undefined) {
    throw new TypeError("Give --body or --body-file, not both");
  }
  const bytes = bodyFile !== undefined ? await io.readFile(bodyFile) : body;
  return {
    method,
    url,
    ...(bytes !== undefined ? { body: bytes } : {}),
    ...(minerHotkey !== undefined ? { minerHotkey } : {}),
  };
}

function format(headers: Record<string, string>, parsed: Parsed): string {
  if (parsed.values.json) return JSON.stringify(headers);
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  if (parsed.values.curl) return lines.map((line) => `-H '${line}'`).join(" ");
  return lines.join("\n");
}

/** Runs one invocation; returns the exit status (0 ok, 2 usage or key error). */
export async function runSign(argv: string[], io: SignIo): Promise<number> {
  try {
    const parsed = parse(argv);
    if (parsed.values.help) {
      io.out(HELP);
      return 0;
    }
    const secret = io.env.FGW_SIGNING_SECRET;
    if (secret === undefined || secret === "") throw new TypeError("FGW_SIGNING_SECRET is not set");
    const timestamp = parsed.values.timestamp;
    if (timestamp !== undefined && !/^[0-9]{1,16}$/.test(timestamp)) {
      throw new TypeError("--timestamp: expected Unix epoch milliseconds");
    }
    const headers = signRequest(signerFromSecretHex(secret), await requestOf(parsed, io), {
      role: parsed.values.miner ? "miner" : "validator",
      nowMs: timestamp !== undefined ? Number(timestamp) : io.nowMs(),
      ...(parsed.values.nonce !== undefined ? { nonce: parsed.values.nonce } : {}),
    });
    io.out(format(headers, parsed));
    return 0;
  } catch (error) {
    io.err(`error: ${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
    return 2;
  }
}

if (import.meta.main) {
  const code = await runSign(Deno.args, {
    env: Deno.env.toObject(),
    out: (text) => console.log(text),
    err: (text) => console.error(text),
    nowMs: () => Date.now(),
    readFile: (path) => Deno.readFile(callerPath(path)),
  });
  Deno.exit(code);
}
