import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed, JSONValue } from "hono/utils/types";

/**
 * What the front door (routes/front_door.ts) hands every request in `c.env`: its request id, the
 * headers every answer to it carries (`X-Request-Id` from the start; the rate-limit headers once a
 * key admitted it), and the answer already built with them, if any.
 */
export interface AnswerEnv {
  requestId: string;
  remoteAddr?: unknown;
  /** Headers every answer to this request carries, by lowercase name. */
  answerHeaders: Record<string, string>;
  /** The last answer `sendJson`/`sendBody` built, with `answerHeaders` in it. */
  built?: Response;
}

/** The front door's bindings of the request; undefined outside it (a sub-app served alone). */
function envOf(c: Context): AnswerEnv | undefined {
  const env = c.env as Partial<AnswerEnv> | undefined;
  return env?.answerHeaders ? env as AnswerEnv : undefined;
}

/**
 * Sets a header on every answer to this request from here on, whichever way it is answered (a
 * route's body, or the error body of a later refusal). Outside the front door (a sub-app served
 * alone) it is Hono's `c.header`, which `sendJson`/`sendBody` then read as well.
 */
export function answerHeader(c: Context, name: string, value: string): void {
  const env = envOf(c);
  if (env) env.answerHeaders[name.toLowerCase()] = value;
  else c.header(name, value);
}

/**
 * A JSON answer built once with every header it carries. Setting a header on a response after
 * it is built costs more under `Deno.serve` than the rest of a small answer (the runtime copies
 * the headers out of its native response), so the front door only adds `answerHeaders` to
 * answers built some other way (`c.json`).
 */
export function sendJson<T extends JSONValue | object, S extends ContentfulStatusCode>(
  c: Context,
  body: T,
  status: S,
  headers?: Record<string, string>,
): Response & TypedResponse<JSONParsed<T>, S, "json"> {
  return sendBody(c, JSON.stringify(body), status, "application/json", headers) as
    & Response
    & TypedResponse<JSONParsed<T>, S, "json">;
}

/**
 * A body of `contentType` built once with every header it carries (see `sendJson`); `headers`
 * (this answer's own) win over the answer headers of the same name, whatever their case.
 */
export function sendBody(
  c: Context,
  body: string | Uint8Array<ArrayBuffer>,
  status: ContentfulStatusCode,
  contentType: string,
  headers?: Record<string, string>,
): Response {
  const env = envOf(c);
  // Outside the front door, Hono builds it: its `c.header` headers (answerHeader's there) are kept.
  if (!env) return c.newResponse(body, status, { "Content-Type": contentType, ...headers });
  const all: Record<string, string> = { "content-type": contentType, ...env.answerHeaders };
  for (const name in headers) all[name.toLowerCase()] = headers[name]!;
  const response = new Response(body, { status, headers: all });
  env.built = response;
  return response;
}

/**
 * The answer as it leaves: `answerHeaders` added unless it was built with them; an answer whose
 * headers cannot change (a fetched response) is copied.
 */
export function stampAnswer(env: AnswerEnv, response: Response): Response {
  if (env.built === response) return response;
  let stamped = response;
  for (const name in env.answerHeaders) stamped = withHeader(stamped, name, env.answerHeaders[name]!);
  return stamped;
}

/** The response with the header set; a copy when its headers are immutable (a fetched response). */
function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set(name, value);
    return copy;
  }
}
