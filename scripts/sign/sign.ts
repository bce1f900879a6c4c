/**
 * `deno task sign [options] METHOD URL` prints the signature headers of one request (docs/signatures.md),
 * for validators and miners to script against the gateway (`curl -H …`) and to check their own
 * signing code; `deno task sign --message TEXT` prints the signature of a message (the dashboard's
 * hotkey sign-in and link messages, docs/dashboard.md). The key comes from `FGW_SIGNING_SECRET`
 * (hex, `0x` optional: a 32-byte seed or a 64-byte secret key); it is never printed.
 */
import { parseArgs } from "node:util";
import { hex } from "@scure/base";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import {
  type RequestToSign,
  type Signer,
  signerFromSecretHex,
  signMessage,
  signRequest,
} from "../../actors/validators/mod.ts";
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
       deno task sign --message TEXT [--json]

Prints the headers that sign the request, one "name: value" line each; with --message, the
signature of TEXT exactly (UTF-8, no newline added), as 0x-prefixed hex.
  FGW_SIGNING_SECRET   hex seed (32 bytes) or secret key (64 bytes) of the hotkey; never printed
  --miner              sign as a miner (x-miner-* headers, domain forecasting-gateway/miner/v1)
  --miner-hotkey SS58  validator acting for this miner (x-miner-hotkey, validator completions,
                       whose body names the lease: "agentPredictionId")
  --body TEXT          the exact body that will be sent
  --body-file PATH     the exact body that will be sent, from a file
  --nonce TEXT         use this nonce (default: 32 random hex digits)
  --timestamp MS       use this timestamp (default: now)
  --message TEXT       sign this message instead of a request (a dashboard sign-in or link
                       message: its lines joined by newlines, none at the end)
  --json               print the headers (or, with --message, hotkey and signature) as JSON
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
      message: { type: "string" },
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

/** The options that belong to a request, which a message takes none of. */
const REQUEST_OPTIONS = ["miner", "miner-hotkey", "body", "body-file", "nonce", "timestamp", "curl"] as const;

/** `--message`'s output: the signature of the message's exact UTF-8 bytes (with `--json`, and the hotkey). */
function signedMessage(signer: Signer, parsed: Parsed): string {
  const used = REQUEST_OPTIONS.filter((name) => parsed.values[name] !== undefined);
  if (parsed.positionals.length > 0 || used.length > 0) {
    throw new TypeError(
      `--message takes no METHOD, URL or request option (${used.join(", ") || "positionals"})`,
    );
  }
  const signature = `0x${hex.encode(signMessage(signer, utf8ToBytes(parsed.values.message ?? "")))}`;
  return parsed.values.json ? JSON.stringify({ hotkey: signer.hotkey, signature }) : signature;
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
    if (parsed.values.message !== undefined) {
      io.out(signedMessage(signerFromSecretHex(secret), parsed));
      return 0;
    }
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
