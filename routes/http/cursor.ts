import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64urlnopad, hex } from "@scure/base";
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
 * writes superjson's own format without its type walk (`{"json":…}` with no `meta`), and the HMAC
 * state after the key is computed once and cloned per cursor.
 */
export class CursorCodec {
  readonly #keyed: ReturnType<typeof hmac.create>;

  constructor(secret: string) {
    this.#keyed = hmac.create(sha256, encoder.encode(secret));
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
    return `${base64urlnopad.encode(payload)}.${base64urlnopad.encode(mac)}`;
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
    let payload: Uint8Array;
    let mac: Uint8Array;
    try {
      payload = base64urlnopad.decode(body);
      mac = base64urlnopad.decode(tag);
    } catch {
      throw invalidCursor("it is malformed");
    }
    const expected = this.#mac(payload);
    if (!sameBytes(mac, expected)) {
      throw invalidCursor("it was not issued here");
    }
    return payload;
  }

  #mac(payload: Uint8Array): Uint8Array {
    return this.#keyed.clone().update(payload).digest().subarray(0, MAC_BYTES);
  }
}

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
