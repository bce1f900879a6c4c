import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ServiceError } from "../../actors/kernel/mod.ts";

/** Default cap on a JSON request body: 64 KiB. */
export const DEFAULT_JSON_BODY_BYTES = 64 * 1024;

/**
 * The one media type a route with a JSON body takes (docs/conventions.md): `application/json`, in
 * any case, whose only parameter may be `charset=utf-8` (RFC 8259: JSON text is UTF-8), quoted or
 * not, with no space but after the `;` (the header's own leading and trailing spaces are gone
 * by then). Another type (`text/plain`, `application/vnd.api+json`), another charset or another
 * spelling is refused here, so the gate is never more lenient than `@hono/zod-openapi`'s own check
 * behind it (which takes no space before `;` or around `=`): every route refuses alike.
 */
const JSON_TYPE = /^application\/json(;\s*charset=("utf-8"|utf-8))?$/i;

/** True for the one media type a JSON body may be sent as (`JSON_TYPE`). */
export function isJsonContentType(contentType: string): boolean {
  return JSON_TYPE.test(contentType);
}

/**
 * The body's declared length when it may be read ahead of the gate: declared JSON
 * (`isJsonContentType`), with a Content-Length and no other framing (the gate counts a streamed
 * body as it reads it; such a body is left to it). Null otherwise.
 */
export function declaredJsonBytes(c: Context): number | null {
  const length = c.req.header("content-length");
  if (length === undefined || c.req.header("transfer-encoding") !== undefined) return null;
  if (!isJsonContentType(c.req.header("content-type") ?? "")) return null;
  return /^\d{1,12}$/.test(length) ? Number(length) : null;
}

/**
 * Caps request bodies at `maxBytes` (Content-Length, or counted while streaming):
 * a larger body answers 413 `payload_too_large` before any handler reads it.
 */
export function jsonBodyLimit(maxBytes: number = DEFAULT_JSON_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ServiceError(
        "payload_too_large",
        `Request body is too large: the limit is ${maxBytes} bytes`,
        {
          details: { maxBytes },
        },
      );
    },
  });
}

/** 415 `unsupported_media_type` unless the request says its body is JSON (a missing type included). */
const requireJsonType: MiddlewareHandler = async (c, next) => {
  const contentType = c.req.header("content-type") ?? "";
  if (!isJsonContentType(contentType)) {
    throw new ServiceError(
      "unsupported_media_type",
      "Request body must be JSON: send Content-Type: application/json",
      {
        details: { contentType: contentType || null },
      },
    );
  }
  await next();
};

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Context variables of the body's parse: the promise of it (`readJsonBody`), and its value once the gate has it. */
const READING = "jsonBodyReading";
const PARSED = "jsonBodyParsed";

/**
 * The body's JSON value, read once per request and shared (the gateway's early hold reads it
 * before the gate: the gate then waits for the same parse). Rejects with 400 `invalid_request`
 * when the body is not UTF-8 (RFC 8259: JSON text is UTF-8; a lenient decoder would turn bad bytes
 * into U+FFFD silently) or not well-formed JSON. Whoever calls it first must have checked the
 * body's size: the gate caps it before it calls.
 */
export function readJsonBody(c: Context): Promise<unknown> {
  let reading = c.get(READING) as Promise<unknown> | undefined;
  if (!reading) {
    reading = parseJsonBody(c);
    c.set(READING, reading);
  }
  return reading;
}

async function parseJsonBody(c: Context): Promise<unknown> {
  let text: string;
  try {
    text = STRICT_UTF8.decode(await c.req.arrayBuffer());
  } catch {
    throw new ServiceError("invalid_request", "Request body is not valid UTF-8", {
      details: { fields: [{ field: "body", problem: "Must be UTF-8 encoded" }] },
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ServiceError("invalid_request", "Malformed JSON in request body");
  }
}

/**
 * 400 `invalid_request` for a body that is not UTF-8 JSON (`readJsonBody`). The raw bytes stay
 * cached by Hono: `c.req.arrayBuffer()` answers them exactly (for a signature over the body), and
 * the route's validator reads its JSON from them; the value parsed here is kept for a route that
 * validates its body itself (`parsedJsonBody`).
 */
const requireWellFormedJson: MiddlewareHandler = async (c, next) => {
  c.set(PARSED, { value: await readJsonBody(c) });
  await next();
};

/**
 * The JSON value of the body as the gate parsed it, for a route mounted without validators
 * (`openapiSelfParsed`) that parses it with its declared schema. Throws when no gate ran.
 */
export function parsedJsonBody(c: Context): unknown {
  const parsed = c.get(PARSED) as { value: unknown } | undefined;
  if (!parsed) throw new Error("No JSON body gate ran on this route");
  return parsed.value;
}

/**
 * What runs before the body validator of a route that takes JSON: the media type (415), the size
 * cap (413), then well-formed JSON (400). `defineRoute` adds it to every route with a body.
 */
export function jsonBodyGate(maxBytes: number = DEFAULT_JSON_BODY_BYTES): MiddlewareHandler[] {
  return [requireJsonType, jsonBodyLimit(maxBytes), requireWellFormedJson];
}
