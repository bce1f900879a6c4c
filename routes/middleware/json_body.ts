import type { Context, Env, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { z } from "zod";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { parseOrThrow } from "../http/validation.ts";

/** Default cap on a JSON request body (admin and key routes): 64 KiB. */
export const DEFAULT_JSON_BODY_BYTES = 64 * 1024;

const JSON_TYPE = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;.*)?$/i;

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

/**
 * Reads the body as JSON and validates it with `schema`: a non-JSON `Content-Type` answers 415
 * `unsupported_media_type`; malformed JSON or a schema failure answers 400 `invalid_request`
 * (details name the fields).
 */
export async function readJsonBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  what = "body",
): Promise<z.infer<S>> {
  const contentType = c.req.header("content-type") ?? "";
  if (!JSON_TYPE.test(contentType)) {
    throw new ServiceError(
      "unsupported_media_type",
      "Request body must be JSON: send Content-Type: application/json",
      {
        details: { contentType: contentType || null },
      },
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(await c.req.text());
  } catch {
    throw new ServiceError("invalid_request", `Malformed JSON in request ${what}`);
  }
  return parseOrThrow(schema, raw, what);
}

/** The input and output types `jsonBody(schema)` adds to a route, for `c.req.valid("json")`. */
export type JsonInput<S extends z.ZodType> = { in: { json: z.input<S> }; out: { json: z.output<S> } };

/**
 * Route middleware form of `readJsonBody`: the handler reads the typed value with
 * `c.req.valid("json")`. Pair it with `jsonBodyLimit` (mounted once per area).
 */
export function jsonBody<S extends z.ZodType, E extends Env = Env, P extends string = string>(
  schema: S,
): MiddlewareHandler<E, P, JsonInput<S>> {
  return async (c, next) => {
    c.req.addValidatedData("json", await readJsonBody(c, schema) as object);
    await next();
  };
}
