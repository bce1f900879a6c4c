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
 * the query they came from (a hash of its normalised parameters).
 */
export class CursorCodec {
  readonly #key: Uint8Array;

  constructor(secret: string) {
    this.#key = encoder.encode(secret);
  }

  /** A short fingerprint of a query's parameters (everything that selects or orders results). */
  static fingerprint(params: Record<string, unknown>): string {
    const canonical = JSON.stringify(Object.entries(params).toSorted(([a], [b]) => a < b ? -1 : 1));
    return hex.encode(sha256(encoder.encode(canonical)).subarray(0, 8));
  }

  encode<T>(queryFingerprint: string, position: T): string {
    const payload = encoder.encode(superjson.stringify({ q: queryFingerprint, p: position }));
    const mac = hmac(sha256, this.#key, payload).subarray(0, MAC_BYTES);
    return `${base64urlnopad.encode(payload)}.${base64urlnopad.encode(mac)}`;
  }

  /** The position a cursor carries; 400 when it is forged, garbled, or from another query. */
  decode<T>(queryFingerprint: string, cursor: string): T {
    const payload = this.#verified(cursor);
    let parsed: { q?: unknown; p?: T };
    try {
      parsed = superjson.parse(decoder.decode(payload));
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
    const expected = hmac(sha256, this.#key, payload).subarray(0, MAC_BYTES);
    if (!sameBytes(mac, expected)) {
      throw invalidCursor("it was not issued here");
    }
    return payload;
  }
}

function invalidCursor(why: string): ServiceError {
  return new ServiceError("invalid_request", `Invalid cursor: ${why}`, {
    details: { fields: [{ field: "cursor", problem: why }] },
  });
}
