import { hex } from "@scure/base";
import { bittensorPublicKey, isSs58Address, ServiceError } from "../kernel/mod.ts";
import type { SignatureRole } from "./canonical_message.ts";

/** The four headers of a signed request, by role (docs/signatures.md, "Headers"). */
export const SIGNATURE_HEADERS = {
  validator: {
    hotkey: "x-validator-hotkey",
    nonce: "x-validator-nonce",
    timestamp: "x-validator-timestamp",
    signature: "x-validator-signature",
  },
  miner: {
    hotkey: "x-miner-hotkey",
    nonce: "x-miner-nonce",
    timestamp: "x-miner-timestamp",
    signature: "x-miner-signature",
  },
} as const satisfies Record<SignatureRole, Record<string, string>>;

/** The miner a validator acts for (validator gateway route); on a miner upload, the signer itself. */
export const MINER_HOTKEY_HEADER = "x-miner-hotkey";

/** Reads one request header by lower-case name: `Headers`, or Hono's `c.req.header`. */
export type HeaderSource = Headers | ((name: string) => string | null | undefined);

/** Signature headers that are well formed (not yet checked against time, metagraph or key). */
export interface SignatureHeaders {
  role: SignatureRole;
  /** The signer's SS58 address (prefix 42), as sent. */
  hotkey: string;
  /** The signer's 32-byte sr25519 public key. */
  publicKey: Uint8Array;
  nonce: string;
  /** The timestamp header value as sent: it is a line of the canonical message. */
  timestamp: string;
  timestampMs: number;
  /** The 64 signature bytes. */
  signature: Uint8Array;
  /** The canonical message's last line: `x-miner-hotkey`, or null when absent. */
  minerHotkey: string | null;
}

const NONCE = /^[\x21-\x7e]{16,128}$/;
const TIMESTAMP = /^[0-9]{1,16}$/;
const SIGNATURE = /^(?:0x)?([0-9a-fA-F]{128})$/;

/** True when `nonce` meets docs/signatures.md ("Headers"): 16..128 printable ASCII characters, no spaces. */
export function isWellFormedNonce(nonce: string): boolean {
  return NONCE.test(nonce);
}

interface FieldProblem {
  field: string;
  problem: string;
}

/**
 * Reads and checks the signature headers of `role` — the first step of the order of docs/signatures.md. A
 * required header missing → 401 `unauthenticated` (`details.missing`); present but malformed →
 * 400 `invalid_request` naming every bad header in `details.fields`: the hotkey must be an SS58
 * address with prefix 42, the nonce 16..128 printable ASCII without spaces, the timestamp Unix
 * epoch milliseconds in decimal digits, the signature 64 bytes of hex (`0x` optional), and
 * `x-miner-hotkey`, when present, an SS58 address with prefix 42.
 */
export function parseSignatureHeaders(source: HeaderSource, role: SignatureRole): SignatureHeaders {
  const read = (name: string) =>
    (typeof source === "function" ? source(name) : source.get(name)) ?? undefined;
  const names = SIGNATURE_HEADERS[role];
  const hotkey = read(names.hotkey);
  const nonce = read(names.nonce);
  const timestamp = read(names.timestamp);
  const signature = read(names.signature);
  if (hotkey === undefined || nonce === undefined || timestamp === undefined || signature === undefined) {
    const missing = Object.values(names).filter((name) => read(name) === undefined);
    throw new ServiceError("unauthenticated", `Missing request signature headers: ${missing.join(", ")}`, {
      details: { missing },
    });
  }
  const minerHotkey = read(MINER_HOTKEY_HEADER) ?? null;
  const publicKey = bittensorPublicKey(hotkey);
  const problems = headerProblems(role, { hotkey, nonce, timestamp, signature, minerHotkey }, publicKey);
  const signatureHex = SIGNATURE.exec(signature)?.[1];
  if (problems.length > 0 || signatureHex === undefined || publicKey === null) {
    throw new ServiceError("invalid_request", "Malformed request signature headers", {
      details: { fields: problems },
    });
  }
  return {
    role,
    hotkey,
    publicKey,
    nonce,
    timestamp,
    timestampMs: Number(timestamp),
    signature: hex.decode(signatureHex.toLowerCase()),
    minerHotkey,
  };
}

interface RawHeaders {
  hotkey: string;
  nonce: string;
  timestamp: string;
  signature: string;
  minerHotkey: string | null;
}

/** The problems of the raw headers; `publicKey` is the hotkey's, null when it is not an address. */
function headerProblems(role: SignatureRole, raw: RawHeaders, publicKey: Uint8Array | null): FieldProblem[] {
  const names = SIGNATURE_HEADERS[role];
  const problems: FieldProblem[] = [];
  const add = (field: string, problem: string) => problems.push({ field, problem });
  if (publicKey === null) add(names.hotkey, "Expected an SS58 address with network prefix 42");
  if (!isWellFormedNonce(raw.nonce)) {
    add(names.nonce, "Expected 16 to 128 printable ASCII characters, no spaces");
  }
  if (!TIMESTAMP.test(raw.timestamp) || !Number.isSafeInteger(Number(raw.timestamp))) {
    add(names.timestamp, "Expected Unix epoch milliseconds as decimal digits");
  }
  if (!SIGNATURE.test(raw.signature)) add(names.signature, "Expected 64 bytes as hex, 0x prefix optional");
  if (raw.minerHotkey !== null && role === "validator" && !isSs58Address(raw.minerHotkey)) {
    add(MINER_HOTKEY_HEADER, "Expected an SS58 address with network prefix 42");
  }
  return problems;
}
