import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { hex } from "@scure/base";
import superjson from "superjson";
import { sameBytes } from "../../actors/kernel/mod.ts";
import { ServiceError } from "../../actors/kernel/mod.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const MAC_BYTES = 16;

/**
 * Opaque page cursors: base64url of a superjson payload plus a truncated HMAC-SHA256, bound to
 * the query they came from (a hash of its normalised parameters). Cursors are made and checked on
 * the hottest uncached pages, so plain JSON positions (every position today) take a fast path that
 * writes superjson's own format without its type walk (`{"json":…}` with no `meta`); the HMAC
 * state after the key is computed once and copied into one reused state per cursor (no allocation),
 * and base64url is the runtime's own (`Uint8Array.toBase64`).
 */
export class CursorCodec {
  readonly #keyed: ReturnType<typeof hmac.create>;
  /** The state each MAC is computed in: calls are synchronous, so one is never used by two at once. */
  readonly #scratch: ReturnType<typeof hmac.create>;
  readonly #digest = new Uint8Array(32);

  constructor(secret: string) {
    this.#keyed = hmac.create(sha256, encoder.encode(secret));
    this.#scratch = hmac.create(sha256, encoder.encode(secret));
  }

  /** A short fingerprint of a query's parameters (everything that selects or orders results). */
  static fingerprint(params: Record<string, unknown>): string {
    const canonical = JSON.stringify(Object.entries(params).toSorted(([a], [b]) => a < b ? -1 : 1));
    return hex.encode(sha256(encoder.encode(canonical)).subarray(0, 8));
  }

  encode<T>(queryFingerprint: string, position: T): string {
    const value = { q: queryFingerprint, p: position };
    const payload = encoder.encode(
      isPlainJson(position) ? JSON.stringify({ json: value }) : superjson.stringify(value),
    );
    const mac = this.#mac(payload);
    return `${toBase64url(payload)}.${toBase64url(mac)}`;
  }

  /** The position a cursor carries; 400 when it is forged, garbled, or from another query. */
  decode<T>(queryFingerprint: string, cursor: string): T {
    const payload = this.#verified(cursor);
    let parsed: { q?: unknown; p?: T };
    try {
      const document = JSON.parse(decoder.decode(payload));
      parsed = document?.meta === undefined ? document?.json ?? {} : superjson.deserialize(document);
    } catch {
      throw invalidCursor("it cannot be read");
    }
    if (parsed.q !== queryFingerprint) throw invalidCursor("it belongs to another query");
    return parsed.p as T;
  }

  #verified(cursor: string): Uint8Array {
    const [body, tag, extra] = cursor.split(".");
    if (!body || !tag || extra !== undefined) throw invalidCursor("it is malformed");
    const payload = fromBase64url(body);
    const mac = fromBase64url(tag);
    if (!payload || !mac) throw invalidCursor("it is malformed");
    const expected = this.#mac(payload);
    if (!sameBytes(mac, expected)) {
      throw invalidCursor("it was not issued here");
    }
    return payload;
  }

  /** The truncated MAC of `payload`, valid until the next call (it lives in a reused buffer). */
  #mac(payload: Uint8Array): Uint8Array {
    this.#keyed._cloneInto(this.#scratch);
    this.#scratch.update(payload).digestInto(this.#digest);
    return this.#digest.subarray(0, MAC_BYTES);
  }
}

function toBase64url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * The bytes of unpadded base64url `text`; null unless `text` is exactly what `toBase64url` writes
 * for them. The runtime's decoder also takes padding and whitespace (caught by the length, which
 * for n bytes is exactly ceil(4n / 3)) and stray low bits in the last character (which must be
 * zero): checked by arithmetic rather than by encoding the bytes again.
 */
function fromBase64url(text: string): Uint8Array | null {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.fromBase64(text, { alphabet: "base64url" });
  } catch {
    return null;
  }
  if (text.length !== Math.ceil((bytes.length * 4) / 3)) return null;
  const spare = (3 - (bytes.length % 3)) % 3; // characters the last group lacks: 0, 1 or 2
  if (spare === 0) return bytes;
  // The last character's unused low bits: 2 of them when one character is missing, 4 when two.
  const last = BASE64URL.indexOf(text[text.length - 1]!);
  return (last & ((1 << (2 * spare)) - 1)) === 0 ? bytes : null;
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** True for values JSON writes and reads back unchanged: null, booleans, finite numbers, strings, and arrays and plain objects of them. */
function isPlainJson(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object":
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isPlainJson);
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      return Object.values(value).every(isPlainJson);
    default:
      return false;
  }
}

function invalidCursor(why: string): ServiceError {
  return new ServiceError("invalid_request", `Invalid cursor: ${why}`, {
    details: { fields: [{ field: "cursor", problem: why }] },
  });
}
